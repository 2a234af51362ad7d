-- Java-only Kafka client properties with no librdkafka equivalent: refused at the table,
-- with what to use instead.
CREATE TABLE src (id INT) WITH (
    'connector' = 'kafka',
    'topic' = 't',
    'format' = 'json',
    'properties.bootstrap.servers' = '127.0.0.1:1',
    'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;',
    'properties.ssl.truststore.location' = '/etc/kafka/truststore.jks'
);
CREATE TABLE out (id INT) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM src;
