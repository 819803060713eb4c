/* Regression tests for the three C ABI bugs of issue 16 ("libsense for real
 * hosts"): agent ids that drove another runtime's agent, sense_error_line()
 * reading 0 for located errors, and memory kept for ever by every
 * sense_runtime_run_source call. */
#include "harness.h"

#include <stdint.h>

/* Bug 1: two runtimes run the same program; an id from one must not drive
 * the other's agent. */
static int test_agent_ids_do_not_cross_runtimes(void) {
    text_buf out_a, out_b;
    sense_runtime *a = harness_runtime(&out_a);
    sense_runtime *b = harness_runtime(&out_b);
    CHECK(a != NULL && b != NULL);
    const char *src = "agent w:\n    print(\"w ran\")\n";
    CHECK_OK(harness_run(a, src, NULL));
    CHECK_OK(harness_run(b, src, NULL));
    sense_agent wa, wb;
    CHECK_OK(harness_agent(a, "w", &wa));
    CHECK_OK(harness_agent(b, "w", &wb));
    CHECK(wa.serial != wb.serial);

    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_agent_start(b, wa, NULL, &err), SENSE_STATUS_NOT_FOUND, err);
    sense_error_free(err);
    sense_agent_status st;
    CHECK_STATUS(sense_agent_get_status(a, wb, &st, NULL), SENSE_STATUS_NOT_FOUND);
    CHECK(out_b.len == 0);
    /* b's own agent is untouched and still starts with its own id. */
    CHECK_OK(sense_agent_start(b, wb, &st, NULL));
    CHECK(st == SENSE_AGENT_STATUS_COMPLETED);
    CHECK_STR(text_buf_view(&out_b), "w ran\n");

    /* A forged id (right slot, serials near the real one) is NOT_FOUND. */
    for (uint64_t d = 1; d < 4; d++) {
        sense_agent forged = wa;
        forged.serial = wa.serial + d;
        CHECK_STATUS(sense_agent_get_status(a, forged, &st, NULL), SENSE_STATUS_NOT_FOUND);
        forged.serial = wa.serial - d;
        CHECK_STATUS(sense_agent_get_status(a, forged, &st, NULL), SENSE_STATUS_NOT_FOUND);
    }
    sense_runtime_free(a);
    sense_runtime_free(b);
    return 0;
}

/* Restored agents keep their ids; agents declared afterwards get new ones,
 * never the ids of agents elsewhere in the process. */
static int test_restored_ids_stay_unique(void) {
    HARNESS_AGENT(a, out, "agent w:\n    pause()\n", wa, "w");
    sense_bytes *snap = NULL;
    CHECK_OK(sense_runtime_snapshot(a, &snap, NULL));
    sense_runtime *b = harness_runtime(&out);
    CHECK(b != NULL);
    CHECK_OK(sense_runtime_restore(b, sense_bytes_data(snap), sense_bytes_len(snap), NULL));
    sense_bytes_free(snap);
    sense_agent wb;
    CHECK_OK(harness_agent(b, "w", &wb));
    CHECK(wb.serial == wa.serial && wb.index == wa.index);
    CHECK_OK(harness_run(a, "agent v:\n    pause()\n", NULL));
    CHECK_OK(harness_run(b, "agent v:\n    pause()\n", NULL));
    sense_agent va, vb;
    CHECK_OK(harness_agent(a, "v", &va));
    CHECK_OK(harness_agent(b, "v", &vb));
    CHECK(va.serial != vb.serial);
    sense_agent_status st;
    CHECK_STATUS(sense_agent_start(a, vb, &st, NULL), SENSE_STATUS_NOT_FOUND);
    CHECK_STATUS(sense_agent_start(b, va, &st, NULL), SENSE_STATUS_NOT_FOUND);
    sense_runtime_free(a);
    sense_runtime_free(b);
    return 0;
}

static void fail_boom(void *user_data, sense_call *call) {
    (void)user_data;
    sense_call_fail(call, "boom", 4, NULL);
}

/* Runs `src` as "p.sns" and checks it fails with `message`, located on
 * `line` (and `column`, or any column when 0) in the rendered text too. */
static int check_located_failure(sense_runtime *rt, const char *src, const char *message,
                                 const char *location, uint32_t line, uint32_t column) {
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_runtime_run_source(rt, "p.sns", 5, src, strlen(src), &err),
                     SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK_STR(sense_error_message(err), message);
    CHECK_CONTAINS(sense_error_rendered(err), location);
    CHECK(sense_error_line(err) == line);
    CHECK(column ? sense_error_column(err) == column : sense_error_column(err) > 0);
    sense_error_free(err);
    return 0;
}

/* Bug 2: the line of an error raised by sense_call_fail. */
static int test_error_line_of_a_failing_host_function(void) {
    HARNESS_RUNTIME(rt, out);
    CHECK_OK(sense_runtime_register_fn(rt, "boom", 4, 0, fail_boom, NULL, NULL, NULL));
    CHECK(check_located_failure(rt, "x = 1\nx = boom()\n", "boom", "--> p.sns:2:5", 2, 5) == 0);
    sense_runtime_free(rt);
    return 0;
}

/* Bug 2: the line of "maximum recursion depth exceeded". */
static int test_error_line_of_too_deep_recursion(void) {
    HARNESS_LIMITED(rt, out, .max_depth = 50);
    CHECK(check_located_failure(rt, "def f(n):\n    return f(n + 1)\nf(0)\n",
                                "maximum recursion depth exceeded", "--> p.sns:2:", 2, 0) == 0);
    sense_runtime_free(rt);
    return 0;
}

/* Resident set size in KiB (Linux), 0 when unknown. */
static long rss_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    long kib = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kib = strtol(line + 6, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kib;
}

static size_t snapshot_len(sense_runtime *rt) {
    sense_bytes *b = NULL;
    if (sense_runtime_snapshot(rt, &b, NULL) != SENSE_STATUS_OK) return 0;
    size_t n = sense_bytes_len(b);
    sense_bytes_free(b);
    return n;
}

/* Runs `count` snippets, each with its own function, string constant and
 * error sometimes. */
static int run_snippets(sense_runtime *rt, long from, long count) {
    char src[256];
    for (long i = from; i < from + count; i++) {
        int n = snprintf(src, sizeof src,
                         "def step(k):\n    return k + %ld\nlast = step(%ld)\nlabel = \"run %ld\"\n",
                         i, i, i);
        sense_status s = sense_runtime_run_source(rt, "snippet.sns", 11, src, (size_t)n, NULL);
        if (s != SENSE_STATUS_OK) return 1;
        if (i % 1000 == 0) {
            /* A failing snippet: its error must not pin anything either. */
            sense_error *err = NULL;
            s = sense_runtime_run_source(rt, "bad.sns", 7, "x = 1 / 0\n", 10, &err);
            sense_error_free(err);
            if (s != SENSE_STATUS_RUNTIME_ERROR) return 1;
        }
    }
    return 0;
}

/* Bug 3: 100,000 run_source calls return memory to its baseline once their
 * values are unreachable, and the snapshot does not grow. Under valgrind or
 * a sanitizer (SENSE_HOST_QUICK=1) the run is shorter and RSS, which their
 * allocators distort, is not compared. */
static int test_run_source_releases_memory(void) {
    int quick = getenv("SENSE_HOST_QUICK") != NULL;
    long total = quick ? 3000 : 100000;
    HARNESS_RUNTIME(rt, out);
    /* Something that stays: a function and an agent the snippets keep. */
    CHECK_OK(harness_run(rt, "def keep(x):\n    return x\nagent a:\n    pause()\n", NULL));
    CHECK(run_snippets(rt, 0, 2000) == 0);
    long rss_base = rss_kib();
    size_t snap_base = snapshot_len(rt);
    CHECK(snap_base > 0);
    CHECK(run_snippets(rt, 2000, total - 2000) == 0);
    long rss_after = rss_kib();
    size_t snap_after = snapshot_len(rt);
    printf("run_source x%ld: RSS %ld -> %ld KiB, snapshot %zu -> %zu bytes\n", total, rss_base,
           rss_after, snap_base, snap_after);
    /* Numbers in the snippets grow by a few digits; nothing else may. */
    CHECK(snap_after <= snap_base + 64);
    if (!quick && rss_base > 0) CHECK(rss_after - rss_base < 8 * 1024);
    /* What the snippets left behind still works. */
    int64_t last = 0;
    CHECK_GLOBAL(rt, "last", sense_value_as_int, &last);
    CHECK(last == 2 * (total - 1));
    CHECK_OK(harness_run(rt, "print(keep(label))\n", NULL));
    char want[64];
    snprintf(want, sizeof want, "run %ld\n", total - 1);
    CHECK_STR(text_buf_view(&out), want);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_agent_ids_do_not_cross_runtimes), TEST(test_restored_ids_stay_unique),
             TEST(test_error_line_of_a_failing_host_function),
             TEST(test_error_line_of_too_deep_recursion), TEST(test_run_source_releases_memory))
