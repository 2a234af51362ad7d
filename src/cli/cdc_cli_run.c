/*
 * cdc_cli_run.c — `cdcflow run` and `cdcflow explain`: the command line
 * (options, environment, logging, metrics endpoint, state directory), reading
 * the pipeline file, running it with cdc_runtime_run_script and printing the
 * error it ends with.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cdc_log.h"
#include "cdc_metrics.h"
#include "cdc_runtime.h"
#include "cdc_util.h"

static char *read_file(const char *path, size_t *len, cdc_error_t **err)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        cdc_error_set(err, CDC_ERR_IO, "could not open \"%s\": %s", path, strerror(errno));
        return NULL;
    }
    cdc_buf_t b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        cdc_buf_append(&b, chunk, n);
    bool bad = ferror(f);
    if (f != stdin)
        fclose(f);
    if (bad) {
        cdc_buf_free(&b);
        cdc_error_set(err, CDC_ERR_IO, "could not read \"%s\"", path);
        return NULL;
    }
    cdc_buf_cstr(&b);
    *len = b.len;
    return b.data;
}

static int print_error(cdc_error_t *err)
{
    if (cdc_log_json()) {
        cdc_log_error(NULL, NULL, err);
    } else {
        fprintf(stderr, "cdcflow: ");
        cdc_error_print(err, stderr);
    }
    cdc_error_destroy(err);
    return 0;
}

int cdc_runtime_main(int argc, char **argv, bool explain_only)
{
    cdc_run_opts_t opts = {.parallelism = 0, .explain_only = explain_only, .out = stdout};
    const char *path = NULL;
    const char *state_dir = NULL;
    int64_t stop_timeout_s = -1; /* the runtime's default */
    bool quiet = false;
    int metrics_port = -1;
    const char *metrics_addr = "0.0.0.0";
    const char *env_level = getenv("CDCFLOW_LOG_LEVEL");
    const char *env_format = getenv("CDCFLOW_LOG_FORMAT");
    if (env_level && *env_level && cdc_log_set_level(env_level) < 0) {
        fprintf(stderr,
                "cdcflow: error: CDCFLOW_LOG_LEVEL takes error, warn, info or debug, "
                "found \"%s\"\n",
                env_level);
        return 2;
    }
    if (env_format && *env_format && cdc_log_set_format(env_format) < 0) {
        fprintf(stderr, "cdcflow: error: CDCFLOW_LOG_FORMAT takes text or json, found \"%s\"\n",
                env_format);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--log-level") == 0 && i + 1 < argc) {
            if (cdc_log_set_level(argv[++i]) < 0) {
                fprintf(stderr,
                        "cdcflow: error: --log-level takes error, warn, info or debug, "
                        "found \"%s\"\n",
                        argv[i]);
                return 2;
            }
            continue;
        }
        if (strcmp(argv[i], "--log-format") == 0 && i + 1 < argc) {
            if (cdc_log_set_format(argv[++i]) < 0) {
                fprintf(stderr, "cdcflow: error: --log-format takes text or json, found \"%s\"\n",
                        argv[i]);
                return 2;
            }
            continue;
        }
        if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            quiet = true;
            continue;
        }
        if ((strcmp(argv[i], "--metrics-port") == 0 || strcmp(argv[i], "--stop-timeout") == 0) &&
            i + 1 < argc) {
            bool port = strcmp(argv[i], "--metrics-port") == 0;
            int64_t n;
            if (cdc_parse_int(argv[i + 1], &n) < 0 || n < 0 || n > (port ? 65535 : 86400)) {
                fprintf(stderr, "cdcflow: error: %s takes %s, found \"%s\"\n", argv[i],
                        port ? "a port from 0 to 65535" : "seconds from 0 to 86400", argv[i + 1]);
                return 2;
            }
            if (port)
                metrics_port = (int)n;
            else
                stop_timeout_s = n;
            i++;
            continue;
        }
        if (strcmp(argv[i], "--state-dir") == 0 && i + 1 < argc) {
            state_dir = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--metrics-address") == 0 && i + 1 < argc) {
            metrics_addr = argv[++i];
            continue;
        }
        if ((strcmp(argv[i], "--parallelism") == 0 || strcmp(argv[i], "-p") == 0) && i + 1 < argc) {
            int64_t n;
            if (cdc_parse_int(argv[++i], &n) < 0 || n < 1 || n > 256) {
                fprintf(stderr, "cdcflow: error: --parallelism takes 1 to 256, found \"%s\"\n",
                        argv[i]);
                return 2;
            }
            opts.parallelism = (int)n;
        } else if (strcmp(argv[i], "--catalog-dir") == 0 && i + 1 < argc) {
            opts.catalog_dir = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "cdcflow: error: unknown option \"%s\"\n", argv[i]);
            return 2;
        } else if (!path) {
            path = argv[i];
        } else {
            fprintf(stderr, "cdcflow: error: one pipeline file at a time, found \"%s\" too\n",
                    argv[i]);
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "cdcflow: error: %s needs a pipeline file (FILE.sql or -)\n",
                explain_only ? "explain" : "run");
        return 2;
    }
    cdc_error_t *err = NULL;
    size_t len = 0;
    char *text = read_file(path, &len, &err);
    if (!text) {
        print_error(err);
        return 2;
    }
    opts.status_line = !explain_only && !quiet && isatty(2) && !cdc_log_json();
    if (!state_dir && getenv("CDCFLOW_STATE_DIR") && *getenv("CDCFLOW_STATE_DIR"))
        state_dir = getenv("CDCFLOW_STATE_DIR");
    cdc_runtime_set_state_dir(state_dir);
    if (state_dir && !explain_only && mkdir(state_dir, 0700) < 0 && errno != EEXIST) {
        fprintf(stderr, "cdcflow: error: could not create the state directory \"%s\": %s\n",
                state_dir, strerror(errno));
        free(text);
        return 2;
    }
    if (metrics_port >= 0 && !explain_only) {
        int bound = 0;
        if (cdc_metrics_serve(metrics_addr, metrics_port, &bound, &err) < 0) {
            free(text);
            print_error(err);
            return 2;
        }
        cdc_log(CDC_LOG_INFO, NULL, NULL, "metrics on http://%s:%d/metrics", metrics_addr, bound);
    }
    cdc_runtime_install_signals();
    cdc_runtime_watchdog_start(stop_timeout_s);
    int rc =
        cdc_runtime_run_script(text, len, strcmp(path, "-") == 0 ? "<stdin>" : path, &opts, &err);
    free(text);
    cdc_runtime_watchdog_stop();
    cdc_metrics_stop_server();
    if (rc < 0) {
        print_error(err);
        return 1;
    }
    return 0;
}
