/*
 * cdc_kafka_mock.h — `cdcflow kafka-mock`: librdkafka's built-in mock cluster
 * on loopback, for demos, tests and benchmarks.
 */
#ifndef CDC_KAFKA_MOCK_H
#define CDC_KAFKA_MOCK_H

/** Runs `cdcflow kafka-mock ARGS` (argv[0] is "kafka-mock"); returns the exit status. */
int cdc_kafka_mock_main(int argc, char **argv);

#endif
