"""The Spark scenarios both lanes run, written once: each function takes the lane's pipeline
(tests/spark/project.py's LanePipeline: a SparkPipeline on `--target spark`, the session lane;
a ClusterPipeline on `--target spark_thrift`, the cluster lane), and each lane's test module
(tests/spark/test_spark_*.py, tests/spark/cluster_lane/test_cluster_*.py) calls it with its
own. What a lane does its own way (how a build is killed, how the harness reaches Spark) stays
in the lane's module.
"""
