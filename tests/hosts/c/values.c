/* sense_value: constructors, inspection, lists, copies, and their NULL
 * and wrong-kind paths. */
#include "harness.h"

static int test_scalars(void) {
    bool b = false;
    int64_t i = 0;
    double f = 0;
    sense_str s;

    sense_value *nil = sense_value_new_nil();
    CHECK(nil != NULL);
    CHECK(harness_check_kind(nil, SENSE_VALUE_KIND_NIL, "Nil") == 0);

    sense_value *t = sense_value_new_bool(true);
    CHECK(harness_check_kind(t, SENSE_VALUE_KIND_BOOL, NULL) == 0);
    CHECK(harness_check_bool(t, true) == 0);

    sense_value *n = sense_value_new_int(INT64_MIN);
    CHECK(harness_check_kind(n, SENSE_VALUE_KIND_INT, "Int") == 0);
    CHECK(harness_check_int(n, INT64_MIN) == 0);

    sense_value *x = sense_value_new_float(2.5);
    CHECK(harness_check_kind(x, SENSE_VALUE_KIND_FLOAT, NULL) == 0);
    CHECK_OK(sense_value_as_float(x, &f, NULL));
    CHECK(f == 2.5);

    sense_value *str = NULL;
    CHECK_OK(sense_value_new_string("h\xc3\xa9llo", 6, &str, NULL));
    CHECK(harness_check_kind(str, SENSE_VALUE_KIND_STRING, "String") == 0);
    CHECK(harness_check_string(str, "h\xc3\xa9llo") == 0);

    /* An empty string may come from a NULL pointer with length 0. */
    sense_value *empty = NULL;
    CHECK_OK(sense_value_new_string(NULL, 0, &empty, NULL));
    CHECK_OK(sense_value_as_string(empty, &s, NULL));
    CHECK(s.len == 0);

    /* Wrong kinds: INVALID_ARGUMENT, out untouched, a static error. */
    sense_error *err = NULL;
    i = 7;
    CHECK_STATUS_ERR(sense_value_as_int(x, &i, &err), SENSE_STATUS_INVALID_ARGUMENT, err);
    CHECK(i == 7);
    CHECK_STR(sense_error_message(err), "the value is not an Int");
    sense_error_free(err);
    CHECK_STATUS(sense_value_as_float(n, &f, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_value_as_bool(nil, &b, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_value_as_string(t, &s, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_value_list_len(str, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    size_t len = 0;
    CHECK_STATUS(sense_value_list_len(str, &len, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    const sense_value *item = NULL;
    CHECK_STATUS(sense_value_list_get(n, 0, &item, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_value_list_push(n, nil, NULL), SENSE_STATUS_INVALID_ARGUMENT);

    FREE_VALUES(nil, t, n, x, str, empty);
    return 0;
}

static int test_strings_are_checked(void) {
    sense_value *v = NULL;
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_value_new_string("\xff\xfe", 2, &v, &err), SENSE_STATUS_INVALID_UTF8,
                     err);
    CHECK(v == NULL);
    CHECK(sense_error_status(err) == SENSE_STATUS_INVALID_UTF8);
    CHECK_STR(sense_error_message(err), "argument `ptr` is not valid UTF-8");
    CHECK_STR(sense_error_class(err), "SenseError");
    sense_error_free(err);
    err = NULL;
    CHECK_ERROR(sense_value_new_string(NULL, 3, &v, &err), SENSE_STATUS_INVALID_ARGUMENT, err,
                "argument `ptr` is NULL but `len` is not 0");
    CHECK_STATUS(sense_value_new_string("abc", 3, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    /* Embedded NULs are fine: strings are ptr + len. */
    CHECK_OK(sense_value_new_string("a\0b", 3, &v, NULL));
    sense_str s;
    CHECK_OK(sense_value_as_string(v, &s, NULL));
    CHECK(s.len == 3 && s.ptr[1] == '\0');
    sense_value_free(v);
    return 0;
}

static int test_lists(void) {
    sense_value *list = sense_value_new_list();
    sense_value *inner = sense_value_new_list();
    sense_value *one = sense_value_new_int(1);
    sense_value *word = harness_string("two");
    CHECK(list && inner && one && word);

    CHECK_OK(sense_value_list_push(inner, one, NULL));
    CHECK_OK(sense_value_list_push(list, one, NULL));
    CHECK_OK(sense_value_list_push(list, word, NULL));
    CHECK_OK(sense_value_list_push(list, inner, NULL));
    /* Pushing copies: the originals are still ours. */
    FREE_VALUES(one, word, inner);

    size_t len = 0;
    CHECK_OK(sense_value_list_len(list, &len, NULL));
    CHECK(len == 3);
    sense_str s;
    CHECK_OK(sense_value_type_name(list, &s, NULL));
    CHECK_STR(s, "Array");

    const sense_value *item = NULL;
    int64_t i = 0;
    CHECK_OK(sense_value_list_get(list, 0, &item, NULL));
    CHECK_OK(sense_value_as_int(item, &i, NULL));
    CHECK(i == 1);
    CHECK_OK(sense_value_list_get(list, 1, &item, NULL));
    CHECK_OK(sense_value_as_string(item, &s, NULL));
    CHECK_STR(s, "two");
    CHECK_OK(sense_value_list_get(list, 2, &item, NULL));
    sense_value_kind kind;
    CHECK_OK(sense_value_get_kind(item, &kind, NULL));
    CHECK(kind == SENSE_VALUE_KIND_LIST);

    sense_error *err = NULL;
    CHECK_ERROR(sense_value_list_get(list, 3, &item, &err), SENSE_STATUS_NOT_FOUND, err,
                "list index out of range");

    /* A list may be pushed into itself: the copy is taken first. */
    CHECK_OK(sense_value_list_push(list, list, NULL));
    CHECK_OK(sense_value_list_len(list, &len, NULL));
    CHECK(len == 4);

    /* Deep copies are independent. */
    sense_value *copy = NULL;
    CHECK_OK(sense_value_clone(list, &copy, NULL));
    sense_value_free(list);
    CHECK_OK(sense_value_list_len(copy, &len, NULL));
    CHECK(len == 4);
    CHECK_OK(sense_value_list_get(copy, 3, &item, NULL));
    CHECK_OK(sense_value_list_len(item, &len, NULL));
    CHECK(len == 3);
    sense_value_free(copy);
    return 0;
}

/* Values cross into Sense and back unchanged. */
static int test_round_trip_through_sense(void) {
    HARNESS_AGENT(rt, out,
                  "agent echo:\n"
                  "    v = pause(\"give me something\")\n"
                  "    print(type_of(v), v)\n"
                  "    pause(v)\n",
                  echo, "echo");
    CHECK_OK(sense_agent_start(rt, echo, NULL, NULL));

    sense_value *list = sense_value_new_list();
    sense_value *f = sense_value_new_float(0.5);
    sense_value *b = sense_value_new_bool(false);
    sense_value *nil = sense_value_new_nil();
    CHECK_OK(sense_value_list_push(list, f, NULL));
    CHECK_OK(sense_value_list_push(list, b, NULL));
    CHECK_OK(sense_value_list_push(list, nil, NULL));
    FREE_VALUES(f, b, nil);
    CHECK_OK(sense_agent_resume(rt, echo, list, NULL, NULL));
    sense_value_free(list);
    CHECK_STR(text_buf_view(&out), "Array [0.5, false, nil]\n");

    sense_value *reason = NULL;
    CHECK_OK(sense_agent_pause_reason(rt, echo, &reason, NULL));
    size_t len = 0;
    CHECK_OK(sense_value_list_len(reason, &len, NULL));
    CHECK(len == 3);
    double d = 0;
    CHECK_OK(sense_value_as_float(harness_item(reason, 0), &d, NULL));
    CHECK(d == 0.5);
    sense_value_free(reason);

    /* Opaque values: a function copied out by name and printed form. */
    sense_value *fn = NULL;
    CHECK_OK(sense_runtime_global(rt, "print", 5, &fn, NULL));
    CHECK(harness_check_kind(fn, SENSE_VALUE_KIND_OPAQUE, NULL) == 0);
    sense_str s;
    CHECK_OK(sense_value_type_name(fn, &s, NULL));
    CHECK(s.len > 0);
    CHECK_OK(sense_value_as_string(fn, &s, NULL));
    CHECK(s.len > 0);
    /* ... which cannot go back into Sense. */
    sense_error *err = NULL;
    CHECK_ERROR_HAS(sense_agent_resume(rt, echo, fn, NULL, &err), SENSE_STATUS_RUNTIME_ERROR, err,
                    "cannot be passed from the host into Sense");
    sense_value_free(fn);
    sense_runtime_free(rt);
    return 0;
}

static int test_null_arguments(void) {
    sense_value *v = sense_value_new_int(1);
    sense_value *out = NULL;
    const sense_value *item = NULL;
    sense_value_kind kind;
    sense_str s;
    bool b;
    int64_t i;
    double f;
    size_t n;
    sense_error *err = NULL;

    CHECK_STATUS_ERR(sense_value_clone(NULL, &out, &err), SENSE_STATUS_INVALID_ARGUMENT, err);
    CHECK_STR(sense_error_message(err), "argument `value` is NULL");
    CHECK_STR(sense_error_rendered(err), "SenseError: argument `value` is NULL");
    CHECK(sense_error_line(err) == 0 && sense_error_column(err) == 0);
    sense_error_free(err);
    CHECK_STATUS(sense_value_clone(v, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_REFUSES_NULLS(sense_value_get_kind, v, &kind);
    CHECK_REFUSES_NULLS(sense_value_type_name, v, &s);
    CHECK_REFUSES_NULLS(sense_value_as_bool, v, &b);
    CHECK_REFUSES_NULLS(sense_value_as_int, v, &i);
    CHECK_REFUSES_NULLS(sense_value_as_float, v, &f);
    CHECK_REFUSES_NULLS(sense_value_as_string, v, &s);
    CHECK_STATUS(sense_value_list_len(NULL, &n, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_value_list_get(NULL, 0, &item, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_value_list_get(v, 0, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_value_list_push(NULL, v, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_value_list_push(v, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    sense_value_free(NULL);
    sense_value_free(v);
    return 0;
}

HARNESS_MAIN(TEST(test_scalars), TEST(test_strings_are_checked), TEST(test_lists),
             TEST(test_round_trip_through_sense), TEST(test_null_arguments))
