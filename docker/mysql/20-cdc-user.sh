#!/bin/bash
# The capture user: replication rights and SELECT for the snapshot; its password comes from
# the environment (CDC_MYSQL_PASSWORD), never from a file in the image.
set -euo pipefail
mysql -uroot -p"$MYSQL_ROOT_PASSWORD" <<SQL
CREATE USER IF NOT EXISTS 'cdc'@'%' IDENTIFIED BY '${CDC_MYSQL_PASSWORD}';
GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'cdc'@'%';
FLUSH PRIVILEGES;
SQL
