/*
 * cdc_sql_parser.h — the syntax tree of cdcflow's Flink-style SQL and the
 * recursive-descent parser that builds it.
 *
 * A script is a sequence of statements separated by ";" (the last ";" is
 * optional): DDL (CREATE/DROP TABLE, VIEW, CATALOG, DATABASE, FUNCTION, ALTER TABLE),
 * USE/SHOW/DESCRIBE, SET/RESET, INSERT, statement sets, EXPLAIN and queries.
 *
 * The parser checks syntax only. Data types are not interpreted: their exact
 * source text is kept (cdc_sql_type_text_t) for the type module to parse.
 * Names, options, columns and expressions keep their 1-based line:col so
 * later stages can point at the source with cdc_sql_caret().
 *
 * Ownership: every pointer in the tree is owned by its parent node and
 * freed by cdc_sql_script_destroy(). A consumer that wants to keep a
 * statement or expression longer may take it (set the parent's pointer to
 * NULL) and later free it with cdc_sql_stmt_destroy()/cdc_sql_expr_destroy(),
 * or copy an expression with cdc_sql_expr_clone().
 */
#ifndef CDC_SQL_PARSER_H
#define CDC_SQL_PARSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cdc_error.h"
#include "cdc_sql_lexer.h"

typedef struct cdc_sql_expr cdc_sql_expr_t;
typedef struct cdc_sql_stmt cdc_sql_stmt_t;
typedef struct cdc_sql_query cdc_sql_query_t;

/* ---- names, options, type text --------------------------------------------------------------- */

/** A 1-, 2- or 3-part object name (catalog.database.object), parts unquoted. */
typedef struct cdc_sql_name {
    char *parts[3]; /* parts[0..nparts-1]; the rest NULL */
    int nparts;     /* 0 when absent */
    int line, col;  /* of the first part */
} cdc_sql_name_t;

/** One identifier with its position (column lists, PARTITIONED BY, aliases). */
typedef struct cdc_sql_ident {
    char *name;
    int line, col;
} cdc_sql_ident_t;

typedef struct cdc_sql_ident_list {
    cdc_sql_ident_t *items;
    size_t count;
} cdc_sql_ident_list_t;

/** One 'key' = 'value' pair of a WITH clause (or k = 'v' of a PARTITION spec). */
typedef struct cdc_sql_option {
    char *key;
    char *value;
    int line, col;             /* of the key */
    int value_line, value_col; /* of the value */
} cdc_sql_option_t;

/** Options in source order; duplicates are kept (validation reports them). */
typedef struct cdc_sql_options {
    cdc_sql_option_t *items;
    size_t count;
} cdc_sql_options_t;

/** A data type as written: "DECIMAL(10, 2)", "ROW<a INT NOT NULL>", "TIMESTAMP(3) WITH LOCAL
 * TIME ZONE". A top-level NOT NULL is not part of it (see cdc_sql_column_t.not_null). */
typedef struct cdc_sql_type_text {
    char *text; /* NULL when absent */
    int line, col;
} cdc_sql_type_text_t;

/* ---- expressions ----------------------------------------------------------------------------- */

typedef enum cdc_sql_expr_kind {
    CDC_SQL_EXPR_LITERAL = 1,
    CDC_SQL_EXPR_COLUMN,    /* a, t.a, a.b.c */
    CDC_SQL_EXPR_STAR,      /* *, t.*  (select items and COUNT(*) only) */
    CDC_SQL_EXPR_UNARY,     /* NOT x, -x, +x */
    CDC_SQL_EXPR_BINARY,    /* x op y */
    CDC_SQL_EXPR_CALL,      /* f(args), also SUBSTRING/TRIM special forms */
    CDC_SQL_EXPR_CAST,      /* CAST / TRY_CAST (x AS type) */
    CDC_SQL_EXPR_CASE,      /* CASE [x] WHEN .. THEN .. [ELSE ..] END */
    CDC_SQL_EXPR_IN,        /* x [NOT] IN (list), x [NOT] IN (SELECT ...) */
    CDC_SQL_EXPR_BETWEEN,   /* x [NOT] BETWEEN lo AND hi */
    CDC_SQL_EXPR_LIKE,      /* x [NOT] LIKE pattern [ESCAPE e] */
    CDC_SQL_EXPR_IS_NULL,   /* x IS [NOT] NULL */
    CDC_SQL_EXPR_SUBSCRIPT, /* x[i], m['k'] */
    CDC_SQL_EXPR_EXISTS     /* EXISTS (SELECT ...); NOT EXISTS is NOT over it */
} cdc_sql_expr_kind_t;

typedef enum cdc_sql_literal_kind {
    CDC_SQL_LIT_INTEGER = 1, /* text "42" */
    CDC_SQL_LIT_DECIMAL,     /* text "4.20", "1e3" as written */
    CDC_SQL_LIT_STRING,      /* text without quotes, '' undone */
    CDC_SQL_LIT_BOOLEAN,     /* text "TRUE" or "FALSE" */
    CDC_SQL_LIT_NULL,        /* text "NULL" */
    CDC_SQL_LIT_DATE,        /* DATE '2020-01-01': text "2020-01-01" */
    CDC_SQL_LIT_TIME,        /* TIME '12:00:00' */
    CDC_SQL_LIT_TIMESTAMP,   /* TIMESTAMP '2020-01-01 12:00:00' */
    CDC_SQL_LIT_INTERVAL,    /* INTERVAL '5' SECOND: text "5", unit "SECOND" */
    CDC_SQL_LIT_SYMBOL       /* a keyword argument such as TRIM's BOTH/LEADING/TRAILING */
} cdc_sql_literal_kind_t;

typedef enum cdc_sql_unary_op {
    CDC_SQL_UNARY_NOT = 1,
    CDC_SQL_UNARY_MINUS,
    CDC_SQL_UNARY_PLUS
} cdc_sql_unary_op_t;

typedef enum cdc_sql_binary_op {
    CDC_SQL_BINARY_OR = 1,
    CDC_SQL_BINARY_AND,
    CDC_SQL_BINARY_EQ,
    CDC_SQL_BINARY_NE, /* <> and != */
    CDC_SQL_BINARY_LT,
    CDC_SQL_BINARY_LE,
    CDC_SQL_BINARY_GT,
    CDC_SQL_BINARY_GE,
    CDC_SQL_BINARY_CONCAT, /* || */
    CDC_SQL_BINARY_ADD,
    CDC_SQL_BINARY_SUB,
    CDC_SQL_BINARY_MUL,
    CDC_SQL_BINARY_DIV,
    CDC_SQL_BINARY_MOD
} cdc_sql_binary_op_t;

typedef struct cdc_sql_case_when {
    cdc_sql_expr_t *when;
    cdc_sql_expr_t *then;
} cdc_sql_case_when_t;

/**
 * An expression node. line:col is where the node starts for literals,
 * columns, calls, CAST and CASE; the operator's token for unary, binary,
 * IN, BETWEEN, LIKE, IS NULL; the "[" for subscripts; EXISTS for EXISTS.
 */
struct cdc_sql_expr {
    cdc_sql_expr_kind_t kind;
    int line, col;
    union {
        struct {
            cdc_sql_literal_kind_t kind;
            char *text;
            char *unit; /* INTERVAL only: "SECOND", "DAY TO SECOND"; else NULL */
        } literal;
        struct {
            char **parts; /* a.b.c: {"a", "b", "c"} as written (unquoted) */
            size_t nparts;
        } column;
        struct {
            cdc_sql_name_t qualifier; /* nparts 0 for a bare "*" */
        } star;
        struct {
            cdc_sql_unary_op_t op;
            cdc_sql_expr_t *operand;
        } unary;
        struct {
            cdc_sql_binary_op_t op;
            cdc_sql_expr_t *left, *right;
        } binary;
        struct {
            /* As written ("upper"); SUBSTRING and TRIM forms use "SUBSTRING"/"TRIM".
             * Compare case-insensitively. */
            char *name;
            cdc_sql_expr_t **args;
            size_t nargs;
            bool distinct;             /* COUNT(DISTINCT x) */
            bool niladic;              /* CURRENT_TIMESTAMP etc. written without parentheses */
            struct cdc_sql_over *over; /* f(...) OVER (...): a window function; else NULL */
        } call;
        struct {
            cdc_sql_expr_t *operand;
            cdc_sql_type_text_t type;
            bool try_cast;
        } cast;
        struct {
            cdc_sql_expr_t *operand; /* CASE x WHEN ...; NULL for CASE WHEN cond ... */
            cdc_sql_case_when_t *whens;
            size_t nwhens;
            cdc_sql_expr_t *else_expr; /* may be NULL */
        } case_expr;
        struct {
            cdc_sql_expr_t *operand;
            cdc_sql_expr_t **items;
            size_t nitems;
            bool negated;
            /* x IN (SELECT ...): the subquery (owned), items empty; NULL for a list. A row
             * (a, b) IN (SELECT ...) has the call "ROW" as its operand. */
            cdc_sql_query_t *subquery;
        } in_list;
        struct {
            cdc_sql_expr_t *operand, *low, *high;
            bool negated;
        } between;
        struct {
            cdc_sql_expr_t *operand, *pattern;
            cdc_sql_expr_t *escape; /* may be NULL */
            bool negated;
        } like;
        struct {
            cdc_sql_expr_t *operand;
            bool negated; /* IS NOT NULL */
        } is_null;
        struct {
            cdc_sql_expr_t *base, *index;
            bool field; /* base.name (a ROW's field): index is the name as a string literal */
        } subscript;
        struct {
            cdc_sql_query_t *query; /* owned */
        } exists;
    };
};

/*
 * Normalized special forms (both print back as valid SQL):
 *   SUBSTRING(s FROM a [FOR b])           -> call "SUBSTRING" args {s, a[, b]}
 *   TRIM([BOTH|LEADING|TRAILING] [c FROM] s) -> call "TRIM" args {SYMBOL mode, c, s};
 *       mode defaults to BOTH, c to the string ' '.
 */

/* ---- queries --------------------------------------------------------------------------------- */

/** The hints of a hint comment (slash, star, plus ... star, slash): OPTIONS('k' = 'v', ...) pairs
 * in source order (the last of a key wins, as cdc_sql_options_find finds it), and every other hint
 * by name (its arguments are skipped; the planner refuses it by name). */
typedef struct cdc_sql_hints {
    cdc_sql_options_t options;
    cdc_sql_ident_list_t others;
} cdc_sql_hints_t;

typedef struct cdc_sql_select_item {
    cdc_sql_expr_t *expr; /* CDC_SQL_EXPR_STAR for * and t.* */
    char *alias;          /* NULL when none */
    int alias_line, alias_col;
} cdc_sql_select_item_t;

typedef struct cdc_sql_query cdc_sql_query_t;

typedef enum cdc_sql_tvf_kind {
    CDC_SQL_TVF_TUMBLE = 1,
    CDC_SQL_TVF_HOP,
    CDC_SQL_TVF_CUMULATE
} cdc_sql_tvf_kind_t;

/** A window table function: TABLE(TUMBLE(TABLE t, DESCRIPTOR(c), size [, offset])),
 * HOP(TABLE t, DESCRIPTOR(c), slide, size [, offset]), CUMULATE(TABLE t, DESCRIPTOR(c), step,
 * size [, offset]); positional or named (DATA =>, TIMECOL =>, SIZE =>, SLIDE =>, STEP =>,
 * OFFSET =>) arguments. */
typedef struct cdc_sql_window_tvf {
    cdc_sql_tvf_kind_t kind;
    cdc_sql_name_t data;     /* TABLE t */
    cdc_sql_ident_t timecol; /* DESCRIPTOR(c) */
    cdc_sql_expr_t *size;
    cdc_sql_expr_t *step;   /* HOP's slide, CUMULATE's step; NULL for TUMBLE */
    cdc_sql_expr_t *offset; /* NULL when none */
    int line, col;          /* of the function's name */
} cdc_sql_window_tvf_t;

/** UNNEST(expr) [WITH ORDINALITY] in a join: one row per element of an ARRAY or entry of a MAP;
 * the table_ref's alias names it, its column list (AS t (a, b)) the columns. */
typedef struct cdc_sql_unnest {
    cdc_sql_expr_t *arg;
    bool ordinality;
    cdc_sql_ident_list_t columns; /* AS t (c1, ...); empty when not written */
    int line, col;                /* of UNNEST */
} cdc_sql_unnest_t;

typedef struct cdc_sql_table_ref {
    cdc_sql_unnest_t *unnest;  /* JOIN UNNEST(...): NULL otherwise (no name then) */
    cdc_sql_window_tvf_t *tvf; /* FROM TABLE(TUMBLE(...)) [AS] alias; NULL otherwise (the name
                                  is then the TVF's data table) */
    cdc_sql_name_t name;       /* nparts 0 for a subquery */
    cdc_sql_query_t *subquery; /* FROM (SELECT ...) [AS] alias; NULL for a table or view name */
    cdc_sql_hints_t hints;     /* table hints: name, then a hint comment */
    char *alias;               /* NULL when none */
    int alias_line, alias_col;
} cdc_sql_table_ref_t;

typedef enum cdc_sql_join_kind {
    CDC_SQL_JOIN_INNER = 1,
    CDC_SQL_JOIN_LEFT,
    CDC_SQL_JOIN_RIGHT,
    CDC_SQL_JOIN_FULL
} cdc_sql_join_kind_t;

/** [INNER|LEFT [OUTER]|RIGHT [OUTER]|FULL [OUTER]] JOIN table [FOR SYSTEM_TIME AS OF expr]
 * [[AS] alias] ON cond */
typedef struct cdc_sql_join {
    cdc_sql_join_kind_t kind;
    cdc_sql_table_ref_t table;
    cdc_sql_expr_t *system_time; /* lookup join; NULL for a regular join */
    cdc_sql_expr_t *on; /* NULL for a comma join (FROM a, b): its conditions are in WHERE */
    bool comma;         /* FROM a, b: an inner join */
    int line, col;      /* of LEFT/INNER/JOIN (of the comma) */
} cdc_sql_join_t;

/** One key of ORDER BY (in OVER or at the end of a query): expr [ASC|DESC] [NULLS FIRST|LAST]. */
typedef struct cdc_sql_order_item {
    cdc_sql_expr_t *expr;
    bool desc;
    int nulls; /* 0 as written nothing, 1 NULLS FIRST, 2 NULLS LAST */
} cdc_sql_order_item_t;

/** One bound of a window frame: UNBOUNDED PRECEDING, n PRECEDING, CURRENT ROW, n FOLLOWING,
 * UNBOUNDED FOLLOWING (n: an integer for ROWS, an INTERVAL for RANGE). */
typedef enum cdc_sql_bound_kind {
    CDC_SQL_BOUND_UNBOUNDED_PRECEDING = 1,
    CDC_SQL_BOUND_PRECEDING,
    CDC_SQL_BOUND_CURRENT_ROW,
    CDC_SQL_BOUND_FOLLOWING,
    CDC_SQL_BOUND_UNBOUNDED_FOLLOWING
} cdc_sql_bound_kind_t;

typedef struct cdc_sql_bound {
    cdc_sql_bound_kind_t kind;
    cdc_sql_expr_t *offset; /* n of n PRECEDING/FOLLOWING; else NULL */
    int line, col;
} cdc_sql_bound_t;

/** OVER ([PARTITION BY e, ...] [ORDER BY k, ...] [ROWS|RANGE frame]) of a window function call,
 * or OVER w (a window of the query's WINDOW clause, copied here by the parser; `name` keeps w).
 */
typedef struct cdc_sql_over {
    cdc_sql_expr_t **partition_by;
    size_t npartition_by;
    cdc_sql_order_item_t *order_by;
    size_t norder_by;
    int frame;             /* 0 none written, 1 ROWS, 2 RANGE */
    cdc_sql_bound_t lower; /* ROWS x is BETWEEN x AND CURRENT ROW */
    cdc_sql_bound_t upper;
    int frame_line, frame_col; /* of ROWS/RANGE */
    char *name;                /* OVER w: w; NULL for a window in parentheses */
    int line, col;             /* of OVER */
} cdc_sql_over_t;

/** One row of VALUES (e1, e2, ...). */
typedef struct cdc_sql_values_row {
    cdc_sql_expr_t **items;
    size_t nitems;
    int line, col; /* of "(" */
} cdc_sql_values_row_t;

/** One common table expression of WITH: name AS (query). */
typedef struct cdc_sql_cte {
    cdc_sql_ident_t name;
    cdc_sql_query_t *query;
} cdc_sql_cte_t;

typedef enum cdc_sql_set_op {
    CDC_SQL_SET_NONE = 0,
    CDC_SQL_SET_UNION, /* UNION without ALL (UNION ALL is the union_all chain) */
    CDC_SQL_SET_INTERSECT,
    CDC_SQL_SET_EXCEPT /* EXCEPT, MINUS */
} cdc_sql_set_op_t;

struct cdc_sql_query {
    int line, col;       /* of SELECT (of WITH when there are CTEs) */
    cdc_sql_cte_t *ctes; /* WITH a AS (...), b AS (...) SELECT ...: in source order */
    size_t nctes;
    char *text;            /* exact source text of the query */
    cdc_sql_hints_t hints; /* query hints: SELECT, then a hint comment */
    bool distinct;
    cdc_sql_select_item_t *items;
    size_t nitems;
    cdc_sql_table_ref_t from; /* name nparts 0 and no subquery: SELECT without FROM */
    cdc_sql_join_t *joins;
    size_t njoins;
    cdc_sql_expr_t *where;     /* may be NULL */
    cdc_sql_expr_t **group_by; /* GROUP BY e, ...: in source order; NULL/0 when none */
    size_t ngroup_by;
    /* GROUP BY with GROUPING SETS, ROLLUP or CUBE: the grouping sets, each a mask of group_by's
     * indexes (bit i: group_by[i]), in Calcite's order (enclosing sets first); NULL/0 for a
     * plain GROUP BY */
    uint64_t *group_sets;
    size_t ngroup_sets;
    int group_line, group_col;      /* of GROUP */
    cdc_sql_expr_t *having;         /* may be NULL */
    int having_line, having_col;    /* of HAVING */
    cdc_sql_order_item_t *order_by; /* ORDER BY at the end of the query (before LIMIT) */
    size_t norder_by;
    int order_line, order_col; /* of ORDER */
    /* INSERT INTO t VALUES (...), (...): rows of the same length; then items, from, joins and
     * where are empty (line:col is that of VALUES) */
    cdc_sql_values_row_t *rows;
    size_t nrows;
    bool has_limit;
    long long limit;
    int limit_line, limit_col;
    /* SELECT ... UNION ALL SELECT ...: the next branch (owned), NULL after the last; the first
     * branch holds the WITH list and the query's text, every branch its own line:col */
    cdc_sql_query_t *union_all;
    /* q UNION | INTERSECT | EXCEPT [ALL] rhs: q's rows (with its UNION ALL branches) combined with
     * those of set_rhs (owned); CDC_SQL_SET_NONE when there is none. UNION ALL stays a chain of
     * union_all branches; a query that is already combined is wrapped in SELECT * FROM (q) before
     * the next operator, so operators apply left to right (INTERSECT first, as in SQL). */
    cdc_sql_set_op_t set_op;
    bool set_all;
    cdc_sql_query_t *set_rhs;
    int set_line, set_col; /* of the operator's keyword */
};

/* ---- CREATE TABLE ---------------------------------------------------------------------------- */

typedef enum cdc_sql_column_kind {
    CDC_SQL_COLUMN_PHYSICAL = 1, /* name TYPE [NOT NULL] */
    CDC_SQL_COLUMN_COMPUTED,     /* name AS expr */
    CDC_SQL_COLUMN_METADATA      /* name TYPE METADATA [FROM 'key'] [VIRTUAL] */
} cdc_sql_column_kind_t;

typedef struct cdc_sql_column {
    cdc_sql_column_kind_t kind;
    char *name;
    int line, col;
    cdc_sql_type_text_t type; /* text NULL for computed columns */
    bool not_null;            /* top-level NOT NULL */
    char *comment;            /* NULL when none */
    cdc_sql_expr_t *expr;     /* computed columns */
    char *metadata_key;       /* METADATA FROM 'key'; NULL means the column name */
    bool is_virtual;          /* METADATA ... VIRTUAL */
} cdc_sql_column_t;

typedef struct cdc_sql_primary_key {
    char *constraint_name; /* CONSTRAINT name, or NULL */
    cdc_sql_ident_list_t columns;
    bool is_inline; /* written on the column: id INT PRIMARY KEY NOT ENFORCED */
    int line, col;  /* of PRIMARY (or CONSTRAINT) */
} cdc_sql_primary_key_t;

typedef struct cdc_sql_watermark {
    cdc_sql_ident_t column;
    cdc_sql_expr_t *expr;
    int line, col; /* of WATERMARK */
} cdc_sql_watermark_t;

typedef enum cdc_sql_like_mode {
    CDC_SQL_LIKE_INCLUDING = 1,
    CDC_SQL_LIKE_EXCLUDING,
    CDC_SQL_LIKE_OVERWRITING
} cdc_sql_like_mode_t;

typedef enum cdc_sql_like_feature {
    CDC_SQL_LIKE_ALL = 1,
    CDC_SQL_LIKE_CONSTRAINTS,
    CDC_SQL_LIKE_GENERATED,
    CDC_SQL_LIKE_METADATA,
    CDC_SQL_LIKE_OPTIONS,
    CDC_SQL_LIKE_PARTITIONS,
    CDC_SQL_LIKE_WATERMARKS
} cdc_sql_like_feature_t;

typedef struct cdc_sql_like_option {
    cdc_sql_like_mode_t mode;
    cdc_sql_like_feature_t feature;
    int line, col;
} cdc_sql_like_option_t;

typedef struct cdc_sql_like {
    cdc_sql_name_t source;
    cdc_sql_like_option_t *options; /* in source order */
    size_t noptions;
    int line, col; /* of LIKE */
} cdc_sql_like_t;

typedef struct cdc_sql_create_table {
    cdc_sql_name_t name;
    bool temporary;
    bool if_not_exists;
    cdc_sql_column_t *columns; /* in source order */
    size_t ncolumns;
    cdc_sql_primary_key_t *primary_key; /* table-level or inline; NULL when none */
    cdc_sql_watermark_t *watermark;     /* NULL when none */
    char *comment;                      /* NULL when none */
    cdc_sql_ident_list_t partitioned_by;
    cdc_sql_options_t options; /* WITH (...) */
    cdc_sql_like_t *like;      /* NULL when none */
    /* CREATE TABLE t [COMMENT] [PARTITIONED BY] [WITH (...)] AS query: the columns come from the
     * query (columns, LIKE and constraints are refused with it); NULL for a plain CREATE TABLE */
    cdc_sql_query_t *as_query;
    int as_line, as_col; /* of AS */
    /* REPLACE TABLE t ... AS (the table must exist) or CREATE OR REPLACE TABLE t ... AS (it may
     * not): the table's definition is replaced by the query's, then its rows inserted */
    enum { CDC_SQL_CREATE = 0, CDC_SQL_REPLACE, CDC_SQL_CREATE_OR_REPLACE } replace;
} cdc_sql_create_table_t;

/* ---- other statements ------------------------------------------------------------------------ */

typedef struct cdc_sql_create_view {
    cdc_sql_name_t name;
    bool temporary;
    bool if_not_exists;
    cdc_sql_ident_list_t columns; /* optional (c1, c2) */
    char *comment;
    cdc_sql_query_t *query;
} cdc_sql_create_view_t;

/** DROP TABLE/VIEW/FUNCTION/CATALOG/DATABASE. */
typedef struct cdc_sql_drop {
    cdc_sql_name_t name;
    bool temporary;
    bool system; /* DROP TEMPORARY SYSTEM FUNCTION */
    bool if_exists;
    bool cascade; /* DROP DATABASE ... CASCADE (RESTRICT is the default) */
} cdc_sql_drop_t;

typedef struct cdc_sql_create_catalog {
    cdc_sql_name_t name; /* one part */
    bool if_not_exists;
    cdc_sql_options_t options;
} cdc_sql_create_catalog_t;

typedef struct cdc_sql_create_database {
    cdc_sql_name_t name; /* [catalog.]database */
    bool if_not_exists;
    char *comment;
    cdc_sql_options_t options;
} cdc_sql_create_database_t;

typedef struct cdc_sql_create_function {
    cdc_sql_name_t name;
    bool temporary;
    bool system; /* CREATE TEMPORARY SYSTEM FUNCTION */
    bool if_not_exists;
    char *identifier; /* AS 'text': the implementation's identifier */
    int identifier_line, identifier_col;
    char *language; /* upper-cased, e.g. "C"; NULL when absent */
} cdc_sql_create_function_t;

typedef enum cdc_sql_show_kind {
    CDC_SQL_SHOW_CATALOGS = 1,
    CDC_SQL_SHOW_DATABASES,
    CDC_SQL_SHOW_TABLES,
    CDC_SQL_SHOW_VIEWS,
    CDC_SQL_SHOW_FUNCTIONS,
    CDC_SQL_SHOW_CURRENT_CATALOG,
    CDC_SQL_SHOW_CURRENT_DATABASE
} cdc_sql_show_kind_t;

typedef struct cdc_sql_show_create {
    cdc_sql_name_t name;
    bool view; /* SHOW CREATE VIEW; false for SHOW CREATE TABLE */
} cdc_sql_show_create_t;

/** SET 'k' = 'v' / SET / RESET 'k' / RESET: key and value NULL when absent. Quotes are
 * optional as in the SQL client (SET a.b-c = 3s): an unquoted key or value is its source text. */
typedef struct cdc_sql_set {
    char *key;
    char *value;
    int key_line, key_col;
    int value_line, value_col;
} cdc_sql_set_t;

typedef enum cdc_sql_alter_action {
    CDC_SQL_ALTER_RENAME_TABLE = 1, /* RENAME TO new_name */
    CDC_SQL_ALTER_RENAME_COLUMN,    /* RENAME column TO new_column */
    CDC_SQL_ALTER_SET,              /* SET ('k' = 'v', ...) */
    CDC_SQL_ALTER_RESET,            /* RESET ('k', ...): the keys, values NULL */
    CDC_SQL_ALTER_ADD,              /* ADD col TYPE / ADD (col TYPE, ...) */
    CDC_SQL_ALTER_MODIFY,           /* MODIFY col TYPE / MODIFY (col TYPE, ...) */
    CDC_SQL_ALTER_DROP,             /* DROP col / DROP (a, b) */
    CDC_SQL_ALTER_DROP_PRIMARY_KEY, /* DROP PRIMARY KEY */
    CDC_SQL_ALTER_DROP_CONSTRAINT,  /* DROP CONSTRAINT name (in column) */
    CDC_SQL_ALTER_DROP_WATERMARK    /* DROP WATERMARK */
} cdc_sql_alter_action_t;

/** Where ADD / MODIFY puts a column: as it is (last for ADD), FIRST, or AFTER a column. */
typedef struct cdc_sql_column_position {
    enum { CDC_SQL_POS_NONE = 0, CDC_SQL_POS_FIRST, CDC_SQL_POS_AFTER } kind;
    cdc_sql_ident_t after; /* AFTER: the column */
} cdc_sql_column_position_t;

/** ALTER TABLE [IF EXISTS] name action (Flink's forms, FLIP-273). */
typedef struct cdc_sql_alter_table {
    cdc_sql_name_t name;
    bool if_exists;
    cdc_sql_alter_action_t action;
    int action_line, action_col;          /* of the action's word */
    cdc_sql_name_t new_name;              /* RENAME TO */
    cdc_sql_ident_t column;               /* RENAME column TO ...; DROP CONSTRAINT name */
    cdc_sql_ident_t new_column;           /* ... TO new_column */
    cdc_sql_options_t options;            /* SET pairs; RESET keys (value NULL) */
    cdc_sql_create_table_t elements;      /* ADD, MODIFY: columns, primary key and watermark as
                                             CREATE TABLE parses them */
    cdc_sql_column_position_t *positions; /* ADD, MODIFY: one per elements.columns */
    size_t npositions;
    cdc_sql_ident_list_t drop; /* DROP */
} cdc_sql_alter_table_t;

typedef struct cdc_sql_insert {
    bool overwrite;
    cdc_sql_name_t table;
    cdc_sql_hints_t hints;        /* INSERT INTO t, then a hint comment */
    cdc_sql_options_t partition;  /* PARTITION (k='v', ...): key = column, value = literal text */
    cdc_sql_ident_list_t columns; /* optional target column list */
    cdc_sql_query_t *query;       /* a SELECT, or the rows of VALUES (query->nrows > 0) */
} cdc_sql_insert_t;

/** EXECUTE STATEMENT SET BEGIN ... END or BEGIN STATEMENT SET; ... END. */
typedef struct cdc_sql_statement_set {
    cdc_sql_stmt_t **inserts; /* each CDC_SQL_STMT_INSERT */
    size_t count;
} cdc_sql_statement_set_t;

/* EXPLAIN detail flags (EXPLAIN CHANGELOG_MODE, ESTIMATED_COST ... stmt). */
#define CDC_SQL_EXPLAIN_CHANGELOG_MODE 0x1u
#define CDC_SQL_EXPLAIN_ESTIMATED_COST 0x2u
#define CDC_SQL_EXPLAIN_JSON_EXECUTION_PLAN 0x4u

typedef struct cdc_sql_explain {
    cdc_sql_stmt_t *stmt; /* INSERT, QUERY or STATEMENT_SET */
    unsigned details;     /* CDC_SQL_EXPLAIN_* */
} cdc_sql_explain_t;

typedef enum cdc_sql_stmt_kind {
    CDC_SQL_STMT_CREATE_TABLE = 1,
    CDC_SQL_STMT_CREATE_VIEW,
    CDC_SQL_STMT_CREATE_CATALOG,
    CDC_SQL_STMT_CREATE_DATABASE,
    CDC_SQL_STMT_CREATE_FUNCTION,
    CDC_SQL_STMT_DROP_TABLE,
    CDC_SQL_STMT_DROP_VIEW,
    CDC_SQL_STMT_DROP_CATALOG,
    CDC_SQL_STMT_DROP_DATABASE,
    CDC_SQL_STMT_DROP_FUNCTION,
    CDC_SQL_STMT_USE_CATALOG,
    CDC_SQL_STMT_USE_DATABASE,
    CDC_SQL_STMT_SHOW,
    CDC_SQL_STMT_SHOW_CREATE,
    CDC_SQL_STMT_DESCRIBE,
    CDC_SQL_STMT_SET,
    CDC_SQL_STMT_RESET,
    CDC_SQL_STMT_INSERT,
    CDC_SQL_STMT_STATEMENT_SET,
    CDC_SQL_STMT_EXPLAIN,
    CDC_SQL_STMT_QUERY,
    CDC_SQL_STMT_SHOW_PARTITIONS, /* SHOW PARTITIONS t: the name in show_create.name */
    CDC_SQL_STMT_ALTER_TABLE
} cdc_sql_stmt_kind_t;

struct cdc_sql_stmt {
    cdc_sql_stmt_kind_t kind;
    int line, col; /* of the first token */
    char *text;    /* exact source text, without the terminating ";" */
    union {
        cdc_sql_create_table_t create_table;       /* CREATE_TABLE */
        cdc_sql_create_view_t create_view;         /* CREATE_VIEW */
        cdc_sql_create_catalog_t create_catalog;   /* CREATE_CATALOG */
        cdc_sql_create_database_t create_database; /* CREATE_DATABASE */
        cdc_sql_create_function_t create_function; /* CREATE_FUNCTION */
        cdc_sql_drop_t drop;                       /* DROP_* */
        cdc_sql_name_t use;                        /* USE_CATALOG, USE_DATABASE */
        cdc_sql_show_kind_t show;                  /* SHOW */
        cdc_sql_show_create_t show_create;         /* SHOW_CREATE */
        cdc_sql_name_t describe;                   /* DESCRIBE */
        cdc_sql_set_t set;                         /* SET, RESET */
        cdc_sql_insert_t insert;                   /* INSERT */
        cdc_sql_statement_set_t statement_set;     /* STATEMENT_SET */
        cdc_sql_explain_t explain;                 /* EXPLAIN */
        cdc_sql_query_t *query;                    /* QUERY */
        cdc_sql_alter_table_t alter_table;         /* ALTER_TABLE */
    };
};

typedef struct cdc_sql_script {
    cdc_sql_stmt_t **stmts; /* entries may be set to NULL by a consumer that takes them */
    size_t count;
} cdc_sql_script_t;

/* ---- API ------------------------------------------------------------------------------------- */

/**
 * Parses a whole script of @p len bytes (@p text need not be NUL-terminated).
 * @p filename (may be NULL: "<input>") is used in messages only.
 *
 * On success returns 0 and stores in @p out a new script the caller frees
 * with cdc_sql_script_destroy(); an empty script has count 0.
 * On failure returns -1, leaves @p out untouched and stores in @p err a new
 * CDC_ERR_SQL error the caller owns:
 *   message "syntax error at FILE:LINE:COL: expected X, found Y"
 *           (Y is "token text" in double quotes or end of input; lexical and
 *           a few other errors use their own wording after the location),
 *   detail  the source line, a newline, and a caret under the column.
 */
int cdc_sql_parse(const char *text, size_t len, const char *filename, cdc_sql_script_t **out,
                  cdc_error_t **err);

/** Frees a script and every statement it still holds; NULL is accepted. */
void cdc_sql_script_destroy(cdc_sql_script_t *script);

/** Frees one statement (taken out of a script) and everything under it; NULL is accepted. */
void cdc_sql_stmt_destroy(cdc_sql_stmt_t *stmt);

/** Frees one query and everything under it; NULL is accepted. */
void cdc_sql_query_destroy(cdc_sql_query_t *query);

/** Frees what @p hints holds (not the struct itself). */
void cdc_sql_hints_free(cdc_sql_hints_t *hints);

/** Frees one expression tree; NULL is accepted. */
void cdc_sql_expr_destroy(cdc_sql_expr_t *expr);

/** Returns a deep copy of @p expr (NULL for NULL); the caller frees it with
 * cdc_sql_expr_destroy(). */
cdc_sql_expr_t *cdc_sql_expr_clone(const cdc_sql_expr_t *expr);

/**
 * Prints @p expr as canonical SQL: single spaces around infix operators,
 * keywords and function names upper-cased, identifiers as written
 * (backtick-quoted when needed), parentheses only where precedence needs
 * them: "a + 1 > 10 AND UPPER(name) LIKE 'A%'", "CAST(a AS BIGINT)".
 * Returns a new string the caller frees.
 */
char *cdc_sql_expr_to_string(const cdc_sql_expr_t *expr);

/** Returns a deep copy of @p over (NULL for NULL); the caller frees it with
 * cdc_sql_over_destroy(). */
cdc_sql_over_t *cdc_sql_over_clone(const cdc_sql_over_t *over);

/** Frees a window; NULL is accepted. */
void cdc_sql_over_destroy(cdc_sql_over_t *over);

/** Prints a window as "PARTITION BY a ORDER BY t ROWS BETWEEN 2 PRECEDING AND CURRENT ROW"
 * (without OVER and parentheses; a named window as its definition). Returns a new string the
 * caller frees. */
char *cdc_sql_over_to_string(const cdc_sql_over_t *over);

/** Returns a deep copy of @p n ORDER BY keys (NULL for NULL); the caller frees each key's expr
 * with cdc_sql_expr_destroy() and the array with free(). */
cdc_sql_order_item_t *cdc_sql_order_items_clone(const cdc_sql_order_item_t *items, size_t n);

/** Prints @p n ORDER BY keys as "a DESC, b NULLS LAST" (no "ORDER BY"). Returns a new string the
 * caller frees. */
char *cdc_sql_order_items_to_string(const cdc_sql_order_item_t *items, size_t n);

/** Prints a name as "cat.db.t", quoting parts that need it. Returns a new string the caller
 * frees. */
char *cdc_sql_name_to_string(const cdc_sql_name_t *name);

/** Returns @p ident quoted with backticks when it is not a plain non-reserved word, else a copy.
 * The caller frees the result. */
char *cdc_sql_quote_ident(const char *ident);

/** Looks up an option by exact key; the last occurrence wins. Returns NULL when absent.
 * The result is borrowed from @p opts. */
const cdc_sql_option_t *cdc_sql_options_find(const cdc_sql_options_t *opts, const char *key);

/** The SQL words of a statement kind, e.g. "CREATE TABLE". Static string. */
const char *cdc_sql_stmt_kind_name(cdc_sql_stmt_kind_t kind);

#endif
