-- U&'...' Unicode string literals: \XXXX and \+XXXXXX escapes, \\ for a backslash, UESCAPE.
CREATE TABLE a (id INT NOT NULL) WITH ('connector' = 'values', 'data' = '+I[1]');
SELECT U&'\0041\00e9\+01F600', U&'d!0061t!+000061!!' UESCAPE '!', CHAR_LENGTH(U&'\0001'), U&'a\\b''c' FROM a;
