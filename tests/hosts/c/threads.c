/* The cross-thread pause request: a pthread asks a long-running agent to
 * pause; the agent stops at a safe point, keeps its state, and resumes to
 * completion. Also requests made before the agent runs, handles outliving
 * the runtime, and the pause handle's NULL paths. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static atomic_int started;
static atomic_bool keep_going;

static void host_started(void *user_data, sense_call *call) {
    (void)user_data;
    atomic_store(&started, 1);
    sense_call_return(call, NULL, NULL);
}

static void host_keep_going(void *user_data, sense_call *call) {
    (void)user_data;
    sense_value *b = sense_value_new_bool(atomic_load(&keep_going));
    sense_call_return(call, b, NULL);
    sense_value_free(b);
}

typedef struct requester {
    sense_pause_handle *handle;
    bool newly;
    sense_status status;
} requester;

static void *request_pause(void *arg) {
    requester *r = (requester *)arg;
    while (!atomic_load(&started)) {
        struct timespec ts = {0, 1000000}; /* 1 ms */
        nanosleep(&ts, NULL);
    }
    struct timespec ts = {0, 20000000}; /* let the loop spin for 20 ms */
    nanosleep(&ts, NULL);
    r->status = sense_pause_handle_request(r->handle, &r->newly, NULL);
    return NULL;
}

static const char *SPINNER =
    "agent spinner:\n"
    "    started()\n"
    "    i = 0\n"
    "    while keep_going():\n"
    "        i = i + 1\n"
    "    print(\"stopped after\", i > 0)\n";

/* A runtime with the spinner program and its host functions, `spinner`
 * looked up and not started yet (nor asked to stop). */
static sense_runtime *spinner_runtime(text_buf *out, sense_agent *spinner) {
    atomic_store(&started, 0);
    atomic_store(&keep_going, true);
    sense_runtime *rt =
        harness_with_fn(harness_runtime(out), "started", 0, host_started, NULL, NULL);
    rt = harness_with_fn(rt, "keep_going", 0, host_keep_going, NULL, NULL);
    if (rt != NULL && (harness_run(rt, SPINNER, NULL) || harness_agent(rt, "spinner", spinner))) {
        sense_runtime_free(rt);
        return NULL;
    }
    return rt;
}

static int test_pthread_pauses_a_running_agent(void) {
    text_buf out;
    sense_agent spinner;
    sense_runtime *rt = spinner_runtime(&out, &spinner);
    CHECK(rt != NULL);

    requester r = {NULL, false, SENSE_STATUS_PANIC};
    CHECK_OK(sense_pause_handle_new(rt, spinner, &r.handle, NULL));
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, request_pause, &r) == 0);

    /* Blocks in the agent's loop until the other thread's request lands. */
    sense_agent_status status = SENSE_AGENT_STATUS_CREATED;
    CHECK_OK(sense_agent_start(rt, spinner, &status, NULL));
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(r.status == SENSE_STATUS_OK);
    CHECK(r.newly == true);
    CHECK(status == SENSE_AGENT_STATUS_PAUSED);

    CHECK(harness_check_pause(rt, spinner, SENSE_PAUSE_KIND_HOST_REQUEST, NULL) == 0);
    bool pending = true;
    CHECK_OK(sense_pause_handle_is_requested(r.handle, &pending, NULL));
    CHECK(pending == false); /* honoured */

    /* The loop really ran, and its local survives the pause. */
    CHECK_OK(harness_run(rt, "seen = spinner.i\n", NULL));
    int64_t i = 0;
    CHECK_GLOBAL(rt, "seen", sense_value_as_int, &i);
    CHECK(i > 0);

    /* Resume: the value is ignored after a host request; it finishes. */
    atomic_store(&keep_going, false);
    CHECK(harness_resume(rt, spinner, harness_string("ignored"), SENSE_AGENT_STATUS_COMPLETED) ==
          0);
    CHECK_STR(text_buf_view(&out), "stopped after true\n");

    sense_pause_handle_free(r.handle);
    sense_runtime_free(rt);
    return 0;
}

static int test_request_before_start_and_after_free(void) {
    text_buf out;
    sense_agent spinner;
    sense_runtime *rt = spinner_runtime(&out, &spinner);
    CHECK(rt != NULL);
    sense_pause_handle *h = NULL;
    CHECK_OK(sense_pause_handle_new(rt, spinner, &h, NULL));
    bool newly = false, pending = false;
    CHECK_OK(sense_pause_handle_request(h, &newly, NULL));
    CHECK(newly == true);
    CHECK_OK(sense_pause_handle_request(h, &newly, NULL));
    CHECK(newly == false); /* already pending */
    CHECK_OK(sense_pause_handle_request(h, NULL, NULL));
    CHECK_OK(sense_pause_handle_is_requested(h, &pending, NULL));
    CHECK(pending == true);

    /* The pending request stops the agent at its first safe point. */
    sense_agent_status status;
    CHECK_OK(sense_agent_start(rt, spinner, &status, NULL));
    CHECK(status == SENSE_AGENT_STATUS_PAUSED);
    CHECK(harness_check_pause(rt, spinner, SENSE_PAUSE_KIND_HOST_REQUEST, NULL) == 0);

    /* The handle may outlive its runtime; requests then do nothing and
     * say so (issue 16). */
    sense_runtime_free(rt);
    CHECK_STATUS(sense_pause_handle_request(h, &newly, NULL), SENSE_STATUS_NOT_FOUND);
    CHECK(!newly);
    sense_pause_handle_free(h);
    return 0;
}

static int test_pause_handle_errors(void) {
    HARNESS_AGENT(rt, out, "agent a:\n    pause()\n", a, "a");
    sense_pause_handle *h = NULL;
    bool b;
    CHECK_STATUS(sense_pause_handle_new(NULL, a, &h, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_pause_handle_new(rt, a, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    sense_agent forged = a;
    forged.serial += 1000000;
    sense_error *err = NULL;
    CHECK_ERROR(sense_pause_handle_new(rt, forged, &h, &err), SENSE_STATUS_NOT_FOUND, err,
                "agent no longer exists");
    CHECK(h == NULL);
    CHECK_STATUS(sense_pause_handle_request(NULL, &b, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_pause_handle_is_requested(NULL, &b, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_OK(sense_pause_handle_new(rt, a, &h, NULL));
    CHECK_STATUS(sense_pause_handle_is_requested(h, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    sense_pause_handle_free(h);
    sense_pause_handle_free(NULL);
    sense_runtime_free(rt);
    return 0;
}

/* A runtime may move between threads between calls. */
typedef struct mover {
    sense_runtime *rt;
    sense_agent agent;
    sense_status status;
    sense_agent_status agent_status;
} mover;

static void *resume_elsewhere(void *arg) {
    mover *m = (mover *)arg;
    sense_value *v = sense_value_new_int(5);
    m->status = sense_agent_resume(m->rt, m->agent, v, &m->agent_status, NULL);
    sense_value_free(v);
    return NULL;
}

static int test_runtime_moves_between_threads(void) {
    text_buf out;
    mover m;
    m.rt = harness_runtime(&out);
    CHECK(m.rt != NULL);
    CHECK_OK(harness_run(m.rt, "agent a:\n    print(pause() * 2)\n", NULL));
    CHECK_OK(harness_agent(m.rt, "a", &m.agent));
    CHECK_OK(sense_agent_start(m.rt, m.agent, NULL, NULL));
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, resume_elsewhere, &m) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(m.status == SENSE_STATUS_OK);
    CHECK(m.agent_status == SENSE_AGENT_STATUS_COMPLETED);
    CHECK_STR(text_buf_view(&out), "10\n");
    sense_runtime_free(m.rt);
    return 0;
}

HARNESS_MAIN(TEST(test_pthread_pauses_a_running_agent),
             TEST(test_request_before_start_and_after_free), TEST(test_pause_handle_errors),
             TEST(test_runtime_moves_between_threads))
