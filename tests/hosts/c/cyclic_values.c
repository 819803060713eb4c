/* Issue 18 item 1 through the C ABI: agents paused on values that contain
 * themselves (a self cycle, a two-array cycle) or share sub-arrays (a
 * 30-level DAG whose tree form has 2^31 nodes), and host functions
 * receiving such values. Every call must return promptly with a bounded
 * value: a cycle reads as `[...]` (an opaque Array) where it recurs, and
 * shared arrays are copied within a fixed budget. */
#include "harness.h"

#include <stdint.h>
#include <time.h>

#define SELF_CYCLE "c = []\npush(c, c)\npush(c, c)\n"
#define TWO_CYCLE "p = []\nq = [p]\npush(p, q)\n"
#define DAG "d = [1]\nfor i in range(30):\n    d = [d, d]\n"

/* Generous for a slow machine under valgrind; the calls take well under
 * a second natively. */
#define SLOW_SECONDS 120.0
/* The copy budget of a shared value is about 2^20 elements. */
#define MAX_NODES ((size_t)3 << 20)

static double now(void) {
    struct timespec t;
    timespec_get(&t, TIME_UTC); /* C11; fine for a coarse bound */
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef struct shape {
    size_t nodes;   /* lists and leaves */
    size_t elided;  /* opaque `[...]` stand-ins */
    size_t depth;   /* deepest list nesting */
    int bad;        /* a call failed */
} shape;

/* Walks a value through the C ABI only, recording its shape. */
static void walk(const sense_value *v, size_t depth, shape *s) {
    s->nodes++;
    if (depth > s->depth) s->depth = depth;
    sense_value_kind kind;
    if (sense_value_get_kind(v, &kind, NULL) != SENSE_STATUS_OK) {
        s->bad = 1;
        return;
    }
    if (kind == SENSE_VALUE_KIND_OPAQUE) {
        sense_str text, type;
        if (sense_value_as_string(v, &text, NULL) != SENSE_STATUS_OK ||
            sense_value_type_name(v, &type, NULL) != SENSE_STATUS_OK ||
            !harness_str_eq(text, "[...]") || !harness_str_eq(type, "Array")) {
            s->bad = 1;
        }
        s->elided++;
        return;
    }
    if (kind != SENSE_VALUE_KIND_LIST) return;
    size_t n = 0;
    if (sense_value_list_len(v, &n, NULL) != SENSE_STATUS_OK) {
        s->bad = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const sense_value *it = NULL;
        if (sense_value_list_get(v, i, &it, NULL) != SENSE_STATUS_OK) {
            s->bad = 1;
            return;
        }
        walk(it, depth + 1, s);
    }
}

static shape shape_of(const sense_value *v) {
    shape s = {0, 0, 0, 0};
    walk(v, 0, &s);
    return s;
}

/* Runs `agent a:` whose body builds `setup` and pauses with `name`, and
 * checks the reason, the member and a snapshot round trip. */
static int check_paused_on(const char *setup, const char *name, size_t want_nodes,
                           size_t want_elided) {
    HARNESS_RUNTIME(rt, out);
    char src[512];
    /* Indent the setup as the agent's body. */
    size_t k = (size_t)snprintf(src, sizeof src, "agent a:\n    ");
    for (const char *p = setup; *p && k + 8 < sizeof src; p++) {
        src[k++] = *p;
        if (*p == '\n' && p[1]) k += (size_t)snprintf(src + k, sizeof src - k, "    ");
    }
    k += (size_t)snprintf(src + k, sizeof src - k, "    pause(%s)\n    print(\"resumed\")\n", name);
    CHECK(k < sizeof src);
    CHECK_OK(harness_run(rt, src, NULL));

    double t0 = now();
    sense_agent a;
    CHECK(harness_start(rt, "a", &a, SENSE_AGENT_STATUS_PAUSED) == 0);

    /* The pause reason, read three ways. */
    sense_value *reason = NULL;
    CHECK_OK(sense_agent_pause_reason(rt, a, &reason, NULL));
    shape s = shape_of(reason);
    CHECK(!s.bad);
    CHECK(s.depth <= 201);
    if (want_nodes) {
        CHECK(s.nodes == want_nodes);
        CHECK(s.elided == want_elided);
    } else {
        CHECK(s.nodes > ((size_t)1 << 20) && s.nodes < MAX_NODES);
    }
    sense_value_free(reason);
    sense_str str;
    CHECK_STATUS(sense_agent_pause_reason_string(rt, a, &str, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    sense_value *member = NULL;
    CHECK_OK(sense_agent_member(rt, a, name, strlen(name), &member, NULL));
    shape m = shape_of(member);
    CHECK(!m.bad && m.nodes == s.nodes);
    sense_value_free(member);

    /* A snapshot keeps the graph as a graph (small), and the restored
     * agent resumes where it paused. */
    sense_bytes *snap = NULL;
    CHECK_OK(sense_runtime_snapshot(rt, &snap, NULL));
    CHECK(sense_bytes_len(snap) < ((size_t)1 << 20));
    HARNESS_RUNTIME(rt2, out2);
    CHECK_OK(sense_runtime_restore(rt2, sense_bytes_data(snap), sense_bytes_len(snap), NULL));
    sense_bytes_free(snap);
    CHECK(harness_resume(rt2, a, NULL, SENSE_AGENT_STATUS_COMPLETED) == 0);
    CHECK_STR(text_buf_view(&out2), "resumed\n");
    double took = now() - t0;
    CHECK(took < SLOW_SECONDS);
    sense_runtime_free(rt2);
    sense_runtime_free(rt);
    return 0;
}

static int test_paused_on_a_self_cycle(void) {
    /* [[...], [...]]: the list and two stand-ins. */
    return check_paused_on(SELF_CYCLE, "c", 3, 2);
}

static int test_paused_on_a_two_array_cycle(void) {
    /* [[[...]]]: p, q, and p again as a stand-in. */
    return check_paused_on(TWO_CYCLE, "p", 3, 1);
}

static int test_paused_on_a_shared_dag(void) {
    return check_paused_on(DAG, "d", 0, 0);
}

/* look(x): records the argument's shape; returns its node count. */
static shape looked[3];
static size_t looks = 0;
static void host_look(void *user_data, sense_call *call) {
    (void)user_data;
    const sense_value *x = NULL;
    if (sense_call_arg(call, 0, &x, NULL) != SENSE_STATUS_OK) {
        sense_call_fail(call, "no argument", 11, NULL);
        return;
    }
    shape s = shape_of(x);
    if (looks < 3) looked[looks] = s;
    looks++;
    sense_value *n = sense_value_new_int((int64_t)s.nodes);
    sense_call_return(call, n, NULL);
    sense_value_free(n);
}

/* echo(x): hands its (copied, elided) argument back to Sense. */
static void host_echo(void *user_data, sense_call *call) {
    (void)user_data;
    const sense_value *x = NULL;
    sense_call_arg(call, 0, &x, NULL);
    sense_call_return(call, x, NULL);
}

static int test_host_functions_receive_cycles_and_dags(void) {
    HARNESS_RUNTIME(rt, out);
    CHECK_OK(sense_runtime_register_fn(rt, "look", 4, 1, host_look, NULL, NULL, NULL));
    CHECK_OK(sense_runtime_register_fn(rt, "echo", 4, 1, host_echo, NULL, NULL, NULL));
    double t0 = now();
    CHECK_PRINTS(rt, out, SELF_CYCLE TWO_CYCLE DAG "print(look(c), look(p), look(d) > 1000000)\n",
                 "3 3 true\n");
    CHECK(looks == 3);
    CHECK(looked[0].elided == 2 && looked[1].elided == 1);
    CHECK(looked[2].nodes < MAX_NODES && !looked[2].bad);

    /* From inside an agent, too (the caller is paused around the call). */
    CHECK_OK(harness_run(rt, "agent g:\n    print(look(c))\n", NULL));
    sense_agent g;
    CHECK(harness_start(rt, "g", &g, SENSE_AGENT_STATUS_COMPLETED) == 0);

    /* A copy with a `[...]` stand-in cannot go back in: a clear error,
     * located at the call. */
    sense_error *err = NULL;
    CHECK_STATUS_ERR(harness_run(rt, "x = echo(c)\n", &err), SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK_CONTAINS(sense_error_message(err), "cannot be passed from the host into Sense");
    CHECK(sense_error_line(err) == 1);
    sense_error_free(err);

    /* A Sense function returning the values, and globals read directly. */
    CHECK_OK(harness_run(rt, "def both():\n    return [c, p, d]\n", NULL));
    sense_value *v = NULL;
    CHECK_OK(sense_runtime_call(rt, "both", 4, NULL, 0, &v, NULL));
    shape b = shape_of(v);
    CHECK(!b.bad && b.nodes < MAX_NODES && b.elided >= 3);
    sense_value_free(v);
    CHECK_OK(sense_runtime_global(rt, "c", 1, &v, NULL));
    CHECK(shape_of(v).nodes == 3);
    sense_value_free(v);
    CHECK(now() - t0 < SLOW_SECONDS);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_paused_on_a_self_cycle), TEST(test_paused_on_a_two_array_cycle),
             TEST(test_paused_on_a_shared_dag), TEST(test_host_functions_receive_cycles_and_dags))
