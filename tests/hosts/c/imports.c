/* A file run by path imports beside itself, whatever the host's working
 * directory: fixtures/app/prog.sns imports fixtures/app/helper.sns, which
 * imports fixtures/app/lib/words.sns. The host runs it from another
 * directory, by a relative and by an absolute path, and a snapshot of its
 * paused agent is restored and resumed from yet another directory. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <unistd.h>

/* The directory the test started in (tests/hosts/c). */
static char home[4096];

/* `home` + "/" + `rel`, into `out`. */
static int path_in_home(const char *rel, char *out, size_t size) {
    int n = snprintf(out, size, "%s/%s", home, rel);
    return n > 0 && (size_t)n < size;
}

static int run_path(const char *path, text_buf *out, sense_runtime **rt_out) {
    sense_runtime *rt = harness_runtime(out);
    CHECK(rt != NULL);
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_runtime_run_file(rt, path, strlen(path), &err), SENSE_STATUS_OK, err);
    CHECK_STR(text_buf_view(out), "hello, top level!\n");
    *rt_out = rt;
    return 0;
}

static int test_relative_path_from_the_parent(void) {
    CHECK(chdir(home) == 0 && chdir("..") == 0);
    text_buf out;
    sense_runtime *rt = NULL;
    CHECK(run_path("c/fixtures/app/prog.sns", &out, &rt) == 0);
    sense_runtime_free(rt);
    return 0;
}

static int test_absolute_path_from_the_root(void) {
    char path[4200];
    CHECK(path_in_home("fixtures/app/prog.sns", path, sizeof path));
    CHECK(chdir("/") == 0);
    text_buf out;
    sense_runtime *rt = NULL;
    CHECK(run_path(path, &out, &rt) == 0);
    sense_runtime_free(rt);
    return 0;
}

/* Started from one directory, snapshotted, restored and answered from
 * another: the helper it imported is still there. */
static int test_restored_elsewhere(void) {
    CHECK(chdir(home) == 0 && chdir("fixtures") == 0);
    text_buf out;
    sense_runtime *rt = NULL;
    CHECK(run_path("app/prog.sns", &out, &rt) == 0);
    sense_agent greeter;
    CHECK_OK(harness_agent(rt, "greeter", &greeter));
    sense_agent_status status = SENSE_AGENT_STATUS_FAILED;
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_agent_start(rt, greeter, &status, &err), SENSE_STATUS_OK, err);
    CHECK(status == SENSE_AGENT_STATUS_PAUSED);
    CHECK_OK(sense_runtime_set_subject(rt, &greeter, NULL));
    sense_bytes *bytes = NULL;
    CHECK_STATUS_ERR(sense_runtime_snapshot(rt, &bytes, &err), SENSE_STATUS_OK, err);
    sense_runtime_free(rt);

    CHECK(chdir("/") == 0);
    HARNESS_RUNTIME(rt2, out2);
    CHECK_STATUS_ERR(
        sense_runtime_restore(rt2, sense_bytes_data(bytes), sense_bytes_len(bytes), &err),
        SENSE_STATUS_OK, err);
    sense_bytes_free(bytes);
    sense_agent subject;
    CHECK_OK(sense_runtime_get_subject(rt2, &subject, NULL));
    sense_value *name = harness_string("Ada");
    CHECK(name != NULL);
    sense_status st = sense_agent_resume(rt2, subject, name, &status, &err);
    sense_value_free(name);
    CHECK_STATUS_ERR(st, SENSE_STATUS_OK, err);
    CHECK(status == SENSE_AGENT_STATUS_COMPLETED);
    CHECK_STR(text_buf_view(&out2), "hello, Ada!\n");
    sense_runtime_free(rt2);
    return 0;
}

int main(void) {
    if (getcwd(home, sizeof home) == NULL) {
        fprintf(stderr, "getcwd failed\n");
        return 1;
    }
    static const harness_test tests[] = {TEST(test_relative_path_from_the_parent),
                                         TEST(test_absolute_path_from_the_root),
                                         TEST(test_restored_elsewhere)};
    return harness_run_tests(tests, sizeof tests / sizeof tests[0]);
}
