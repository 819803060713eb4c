/* Output and input callbacks: capture print, answer ask_human outside
 * agents, end of input, restoring stdout/stdin, user data destructors. */
#include "harness.h"

typedef struct script {
    const char *lines[4];
    int next;
    int calls;
    int freed;
} script;

static bool scripted_input(void *user_data, sense_str *line) {
    script *s = (script *)user_data;
    s->calls++;
    if (s->lines[s->next] == NULL) return false; /* end of input */
    *line = harness_str(s->lines[s->next++]);
    return true;
}

static void script_free(void *user_data) {
    ((script *)user_data)->freed++;
}

static int out_freed = 0;
static void out_free(void *user_data) {
    (void)user_data;
    out_freed++;
}

static int test_output_callback_sees_print(void) {
    sense_runtime *rt = NULL;
    CHECK_OK(sense_runtime_new(&rt, NULL));
    text_buf out = {{0}, 0};
    CHECK_OK(sense_runtime_set_output(rt, text_buf_append, &out, out_free, NULL));
    CHECK_PRINTS(rt, out, "print(\"h\xc3\xa9llo\", 1, [2, 3], nil)\nprint(1.5)\n",
                 "h\xc3\xa9llo 1 [2, 3] nil\n1.5\n");

    /* Redirecting again frees the old user data. */
    text_buf out2 = {{0}, 0};
    CHECK(out_freed == 0);
    CHECK_OK(sense_runtime_set_output(rt, text_buf_append, &out2, out_free, NULL));
    CHECK(out_freed == 1);
    CHECK_PRINTS(rt, out2, "print(\"second\")\n", "second\n");

    /* NULL restores stdout; a destructor given with it runs at once. */
    CHECK_OK(sense_runtime_set_output(rt, NULL, NULL, NULL, NULL));
    CHECK(out_freed == 2);
    CHECK_OK(sense_runtime_set_output(rt, NULL, &out2, out_free, NULL));
    CHECK(out_freed == 3);
    CHECK_PRINTS(rt, out2, "print(\"(this line goes to stdout)\")\n", "second\n");

    CHECK_STATUS(sense_runtime_set_output(NULL, text_buf_append, &out, out_free, NULL),
                 SENSE_STATUS_INVALID_ARGUMENT);
    CHECK(out_freed == 4); /* freed even when registering fails */
    sense_runtime_free(rt);
    return 0;
}

static int test_input_callback_answers_ask_human(void) {
    HARNESS_RUNTIME(rt, out);
    script s = {{"Ada\n", "42", NULL, NULL}, 0, 0, 0};
    CHECK_OK(sense_runtime_set_input(rt, scripted_input, &s, script_free, NULL));
    CHECK_PRINTS(rt, out,
                 "name = ask_human(\"Name?\")\n"
                 "n = int(ask_human(\"Number?\"))\n"
                 "print(\"hi\", name, n + 1)\n",
                 "Name?\n> Number?\n> hi Ada 43\n");
    CHECK(s.calls == 2);

    /* End of input is a runtime error in Sense. */
    sense_error *err = NULL;
    CHECK_ERROR_HAS(harness_run(rt, "ask_human(\"More?\")\n", &err), SENSE_STATUS_RUNTIME_ERROR,
                    err, "no input (end of file)");
    CHECK(s.calls == 3);

    /* NULL restores stdin (not read here) and frees the script. */
    CHECK(s.freed == 0);
    CHECK_OK(sense_runtime_set_input(rt, NULL, NULL, NULL, NULL));
    CHECK(s.freed == 1);

    script s2 = {{NULL, NULL, NULL, NULL}, 0, 0, 0};
    CHECK_OK(sense_runtime_set_input(rt, scripted_input, &s2, script_free, NULL));
    sense_runtime_free(rt);
    CHECK(s2.freed == 1);

    CHECK_STATUS(sense_runtime_set_input(NULL, scripted_input, &s2, script_free, NULL),
                 SENSE_STATUS_INVALID_ARGUMENT);
    CHECK(s2.freed == 2);
    return 0;
}

/* Invalid UTF-8 from the input callback is replaced, not trusted. */
static bool bad_input(void *user_data, sense_str *line) {
    (void)user_data;
    line->ptr = "a\xff";
    line->len = 2;
    return true;
}

static int test_invalid_input_is_replaced(void) {
    HARNESS_RUNTIME(rt, out);
    CHECK_OK(sense_runtime_set_input(rt, bad_input, NULL, NULL, NULL));
    CHECK_PRINTS(rt, out, "x = ask_human(\"?\")\nprint(len(x))\n", "?\n> 2\n");
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_output_callback_sees_print), TEST(test_input_callback_answers_ask_human),
             TEST(test_invalid_input_is_replaced))
