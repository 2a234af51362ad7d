/*
 * tests/connectors/mysql_cdc.c — what the mysql-cdc source needs of libmariadb beyond the
 * servers of tests/integration: the client authentication plugins of MySQL 8 logins.
 * mysql_native_password is built into the library; caching_sha2_password (MySQL 8's default)
 * is loaded from libmariadb3's plugin folder at login, so a machine without it can read
 * MariaDB but not a MySQL 8 account: this test fails there.
 */
#include <criterion/criterion.h>
#include <mysql.h>

#include "cdc_plugin.h"

/* from <mysql/client_plugin.h>, which Debian's libmariadb-dev cannot compile (it includes
 * ma_compress.h, not shipped) */
#define AUTH_PLUGIN 2 /* MYSQL_CLIENT_AUTHENTICATION_PLUGIN */

Test(mysql_cdc, auth_plugins_load)
{
    MYSQL *m = mysql_init(NULL);
    cr_assert_not_null(m);
    struct st_mysql_client_plugin *p =
        mysql_client_find_plugin(m, "mysql_native_password", AUTH_PLUGIN);
    cr_expect_not_null(p, "mysql_native_password: %s", mysql_error(m));
    p = mysql_load_plugin(m, "caching_sha2_password", AUTH_PLUGIN, 0);
    cr_expect_not_null(p, "caching_sha2_password (install libmariadb3): %s", mysql_error(m));
    /* a name no folder holds is not found: the check above has teeth */
    cr_expect_null(mysql_load_plugin(m, "no_such_auth_plugin", AUTH_PLUGIN, 0));
    /* the source's factory is registered (the plugin is built with its libmariadb) */
    cr_expect_not_null(cdc_registry_connector("mysql-cdc"));
    mysql_close(m);
}
