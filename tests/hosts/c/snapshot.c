/*
 * Snapshots through the C ABI: an approval flow carried across runtimes as
 * bytes (snapshot, free, new runtime, re-register, restore, resume), the
 * subject agent, a missing host function or model provider named at
 * restore time, restoring into a used runtime, every truncation and
 * single-bit corruption of a real snapshot (and resealed random damage)
 * refused without a crash, the CLI's checked-in snapshot, the restoring
 * runtime's own limits, and NULL paths.
 */
#include "harness.h"

static const char *WORKFLOW =
    "servers = [\"web-1\", \"web-2\"]\n"
    "deployed = []\n"
    "agent release:\n"
    "    print(\"preparing v2.1 for\", len(servers), \"servers\")\n"
    "    ok = approve(\"deploy v2.1 to \" + str(len(servers)) + \" servers\")\n"
    "    if ok != true:\n"
    "        print(\"release cancelled\")\n"
    "        return\n"
    "    for h in servers:\n"
    "        push(deployed, h + \"@v2.1\")\n"
    "    note = ask_human(\"release notes?\")\n"
    "    print(\"deployed to\", len(deployed), \"servers:\", note)\n";

/* A runtime printing into `out`, with approve() registered (counting its
 * calls in `a` when not NULL). */
static sense_runtime *approval_runtime(text_buf *out, harness_calls *a) {
    return harness_with_fn(harness_runtime(out), "approve", 1, harness_approve, a,
                           a ? harness_calls_free : NULL);
}

/* An approval runtime that has run the workflow and started `release`,
 * which pauses inside approve(); NULL on failure. */
static sense_runtime *started_release(text_buf *out, sense_agent *release) {
    sense_runtime *rt = approval_runtime(out, NULL);
    if (rt != NULL && (harness_run(rt, WORKFLOW, NULL) != SENSE_STATUS_OK ||
                       harness_start(rt, "release", release, SENSE_AGENT_STATUS_PAUSED) != 0)) {
        sense_runtime_free(rt);
        return NULL;
    }
    return rt;
}

/* A snapshot of the workflow paused in approve(), with `release` as its
 * subject, copied into `*data` (malloc'd; the caller frees it); what the
 * workflow printed goes to `out`, its id to `release`. */
static int paused_snapshot(text_buf *out, sense_agent *release, uint8_t **data, size_t *len) {
    sense_runtime *rt = started_release(out, release);
    CHECK(rt != NULL);
    CHECK_OK(sense_runtime_set_subject(rt, release, NULL));
    sense_bytes *bytes = NULL;
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_runtime_snapshot(rt, &bytes, &err), SENSE_STATUS_OK, err);
    *len = sense_bytes_len(bytes);
    CHECK(*len > 20);
    *data = (uint8_t *)malloc(*len);
    CHECK(*data != NULL);
    memcpy(*data, sense_bytes_data(bytes), *len);
    sense_bytes_free(bytes);
    sense_runtime_free(rt);
    return 0;
}

/* paused_snapshot, when only the bytes matter. */
static int snapshot_bytes(uint8_t **data, size_t *len) {
    text_buf out;
    sense_agent release;
    return paused_snapshot(&out, &release, data, len);
}

/* A runtime with a step budget of `max_steps`, printing into `out`, with
 * approve() registered. */
static sense_runtime *budget_runtime(text_buf *out, uint64_t max_steps) {
    return harness_with_fn(harness_limited_runtime(out, (harness_limits){.max_steps = max_steps}),
                           "approve", 1, harness_approve, NULL, NULL);
}

/* Snapshot, free the runtime, restore into a new one (twice, with a pause
 * in between): the output matches a run that never stopped. */
static int test_approval_flow_across_runtimes(void) {
    /* The reference: one runtime from start to finish. */
    text_buf ref_out;
    sense_agent r;
    sense_runtime *ref = started_release(&ref_out, &r);
    CHECK(ref != NULL);
    CHECK(harness_resume(ref, r, sense_value_new_bool(true), SENSE_AGENT_STATUS_PAUSED) == 0);
    CHECK(harness_resume(ref, r, harness_string("all green"), SENSE_AGENT_STATUS_COMPLETED) == 0);
    CHECK_STR(text_buf_view(&ref_out),
              "preparing v2.1 for 2 servers\ndeployed to 2 servers: all green\n");
    sense_runtime_free(ref);

    /* Host 1 runs until approve() suspends, snapshots, and goes away. */
    text_buf out1;
    sense_agent release;
    uint8_t *saved = NULL;
    size_t len = 0;
    CHECK(paused_snapshot(&out1, &release, &saved, &len) == 0);

    /* Host 2: new runtime, same callbacks, restore, approve. */
    text_buf out2;
    harness_calls a2 = {0, 0};
    sense_runtime *rt2 = approval_runtime(&out2, &a2);
    CHECK(rt2 != NULL);
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_runtime_restore(rt2, saved, len, &err), SENSE_STATUS_OK, err);
    free(saved);
    sense_agent subject;
    CHECK_OK(sense_runtime_get_subject(rt2, &subject, NULL));
    CHECK(subject.serial == release.serial && subject.index == release.index);
    sense_agent by_name;
    CHECK_OK(harness_agent(rt2, "release", &by_name));
    CHECK(by_name.serial == release.serial && by_name.index == release.index);
    sense_agent_status status = SENSE_AGENT_STATUS_FAILED;
    CHECK_OK(sense_agent_get_status(rt2, subject, &status, NULL));
    CHECK(status == SENSE_AGENT_STATUS_PAUSED);
    CHECK(harness_check_pause(rt2, subject, SENSE_PAUSE_KIND_HOST_FUNCTION,
                              "approve deploy v2.1 to 2 servers?") == 0);
    CHECK(harness_resume(rt2, subject, sense_value_new_bool(true), SENSE_AGENT_STATUS_PAUSED) == 0);
    CHECK(a2.calls == 0); /* the suspended call is not made again */
    CHECK(harness_check_pause(rt2, subject, SENSE_PAUSE_KIND_ASK_HUMAN, "release notes?") == 0);

    /* Host 2 snapshots again; host 3 finishes the release. */
    sense_bytes *bytes = NULL;
    CHECK_STATUS_ERR(sense_runtime_snapshot(rt2, &bytes, &err), SENSE_STATUS_OK, err);
    sense_runtime_free(rt2);
    CHECK(a2.freed == 1);

    text_buf out3;
    sense_runtime *rt3 = approval_runtime(&out3, NULL);
    CHECK(rt3 != NULL);
    CHECK_STATUS_ERR(harness_restore(rt3, bytes, &err), SENSE_STATUS_OK, err);
    sense_bytes_free(bytes);
    CHECK_OK(sense_runtime_get_subject(rt3, &subject, NULL));
    CHECK(harness_resume(rt3, subject, harness_string("all green"), SENSE_AGENT_STATUS_COMPLETED) ==
          0);

    /* Output from the three hosts adds up to the uninterrupted run. */
    char joined[3 * sizeof out1.data];
    int n = snprintf(joined, sizeof joined, "%s%s%s", out1.data, out2.data, out3.data);
    CHECK(n > 0);
    CHECK_STR(harness_str(joined), ref_out.data);
    CHECK_STR(text_buf_view(&out2), "");

    size_t count = 0;
    CHECK_GLOBAL(rt3, "deployed", sense_value_list_len, &count);
    CHECK(count == 2);
    sense_runtime_free(rt3);
    return 0;
}

/* A snapshot needing approve() is refused by a runtime without it, naming
 * the function; the runtime stays new, so registering it and retrying works. */
static int test_missing_host_function_is_named(void) {
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK(snapshot_bytes(&data, &len) == 0);

    HARNESS_RUNTIME(rt, out);
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_runtime_restore(rt, data, len, &err), SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK(sense_error_status(err) == SENSE_STATUS_RUNTIME_ERROR);
    CHECK_STR(sense_error_message(err),
              "cannot restore snapshot: it uses the host function 'approve', which is not "
              "registered (register it before restoring)");
    CHECK_CONTAINS(sense_error_rendered(err), "'approve'");
    sense_error_free(err);
    sense_agent a;
    CHECK_STATUS(harness_agent(rt, "release", &a), SENSE_STATUS_NOT_FOUND);

    CHECK_OK(sense_runtime_register_fn(rt, "approve", 7, 1, harness_approve, NULL, NULL, NULL));
    CHECK_STATUS_ERR(sense_runtime_restore(rt, data, len, &err), SENSE_STATUS_OK, err);
    free(data);
    CHECK_OK(sense_runtime_get_subject(rt, &a, NULL));
    CHECK(harness_resume(rt, a, sense_value_new_bool(false), SENSE_AGENT_STATUS_COMPLETED) == 0);
    CHECK_STR(text_buf_view(&out), "release cancelled\n");
    sense_runtime_free(rt);
    return 0;
}

/* acme: answers "acme says <prompt>". */
static void acme_complete(void *user_data, sense_str model_id, sense_str prompt,
                          sense_completion *completion) {
    (void)user_data;
    (void)model_id;
    char buf[256];
    int n = snprintf(buf, sizeof buf, "acme says %.*s", (int)prompt.len, prompt.ptr);
    sense_completion_set_text(completion, buf, (size_t)n, NULL);
}

static sense_status register_acme(sense_runtime *rt) {
    return sense_runtime_register_provider(rt, "acme", 4, NULL, 0, "acme-1", 6, acme_complete,
                                           NULL, NULL, NULL);
}

/* A snapshot holding a model of a provider the restoring runtime lacks is
 * refused, naming the provider; that is found only after the state was
 * loaded, so the runtime is no longer new. A runtime with the provider
 * registered restores it and the model answers through it. */
static int test_missing_provider_is_named(void) {
    const char *src =
        "model m = inference(\"acme\")\n"
        "agent asker:\n"
        "    topic = pause(\"topic?\")\n"
        "    print(m.ask(topic).value)\n";
    HARNESS_RUNTIME(rt, out);
    CHECK_OK(register_acme(rt));
    sense_error *err = NULL;
    CHECK_STATUS_ERR(harness_run(rt, src, &err), SENSE_STATUS_OK, err);
    sense_agent asker;
    CHECK(harness_start(rt, "asker", &asker, SENSE_AGENT_STATUS_PAUSED) == 0);
    sense_bytes *bytes = NULL;
    CHECK_OK(sense_runtime_snapshot(rt, &bytes, NULL));
    sense_runtime_free(rt);

    rt = harness_runtime(&out);
    CHECK(rt != NULL);
    CHECK_ERROR_HAS(harness_restore(rt, bytes, &err), SENSE_STATUS_RUNTIME_ERROR, err,
                    "model provider 'acme', which is not registered");
    CHECK_OK(register_acme(rt));
    CHECK_STATUS(harness_restore(rt, bytes, NULL), SENSE_STATUS_WRONG_STATE);
    sense_runtime_free(rt);

    rt = harness_runtime(&out);
    CHECK(rt != NULL);
    CHECK_OK(register_acme(rt));
    CHECK_STATUS_ERR(harness_restore(rt, bytes, &err), SENSE_STATUS_OK, err);
    sense_bytes_free(bytes);
    CHECK(harness_resume(rt, asker, harness_string("tea"), SENSE_AGENT_STATUS_COMPLETED) == 0);
    CHECK_STR(text_buf_view(&out), "acme says tea\n");
    sense_runtime_free(rt);
    return 0;
}

/* Restoring needs a runtime that has run nothing; neither restoring nor
 * snapshotting works from inside a callback. */
static sense_runtime *callback_rt = NULL;
static sense_status callback_snapshot = SENSE_STATUS_OK;
static sense_status callback_restore = SENSE_STATUS_OK;
static void host_meddle(void *user_data, sense_call *call) {
    (void)user_data;
    sense_bytes *b = NULL;
    callback_snapshot = sense_runtime_snapshot(callback_rt, &b, NULL);
    sense_bytes_free(b);
    callback_restore = sense_runtime_restore(callback_rt, NULL, 0, NULL);
    sense_call_return(call, NULL, NULL);
}

static int test_restore_needs_a_new_runtime(void) {
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK(snapshot_bytes(&data, &len) == 0);
    sense_error *err = NULL;

    text_buf out;
    sense_runtime *used = approval_runtime(&out, NULL);
    CHECK(used != NULL);
    CHECK_OK(harness_run(used, "x = 1\n", NULL));
    CHECK_ERROR_HAS(sense_runtime_restore(used, data, len, &err), SENSE_STATUS_WRONG_STATE, err,
                    "already run or restored code");
    sense_runtime_free(used);

    /* A runtime whose program did not even parse has run code too. */
    used = approval_runtime(&out, NULL);
    CHECK(used != NULL);
    CHECK_STATUS(harness_run(used, "x = (\n", NULL), SENSE_STATUS_SYNTAX_ERROR);
    CHECK_STATUS(sense_runtime_restore(used, data, len, NULL), SENSE_STATUS_WRONG_STATE);
    sense_runtime_free(used);

    sense_runtime *twice = approval_runtime(&out, NULL);
    CHECK(twice != NULL);
    CHECK_OK(sense_runtime_restore(twice, data, len, NULL));
    CHECK_STATUS(sense_runtime_restore(twice, data, len, NULL), SENSE_STATUS_WRONG_STATE);
    sense_runtime_free(twice);
    free(data);

    callback_rt = approval_runtime(&out, NULL);
    CHECK(callback_rt != NULL);
    CHECK_OK(sense_runtime_register_fn(callback_rt, "meddle", 6, 0, host_meddle, NULL, NULL, NULL));
    CHECK_OK(harness_run(callback_rt, "meddle()\n", NULL));
    CHECK(callback_snapshot == SENSE_STATUS_WRONG_STATE);
    CHECK(callback_restore == SENSE_STATUS_WRONG_STATE);
    sense_runtime_free(callback_rt);
    callback_rt = NULL;
    return 0;
}

/* FNV-1a 64, the format's checksum (see sense-eval/src/snapshot.rs): the
 * header is 8 bytes of magic, a 4-byte version and the 8-byte checksum of
 * the payload that follows. Resealing lets damage reach the decoder. */
static uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static void reseal(uint8_t *p, size_t n) {
    uint64_t sum = fnv1a(p + 20, n - 20);
    for (int i = 0; i < 8; i++) p[12 + i] = (uint8_t)(sum >> (8 * i));
}

/* A refused restore: RUNTIME_ERROR with a message. */
static int check_refused(sense_runtime *rt, const uint8_t *data, size_t len, size_t at) {
    sense_error *err = NULL;
    sense_status st = sense_runtime_restore(rt, data, len, &err);
    if (st != SENSE_STATUS_RUNTIME_ERROR) {
        fprintf(stderr, "case %zu: status %d\n", at, (int)st);
        sense_error_free(err);
        return 1;
    }
    CHECK(sense_error_status(err) == SENSE_STATUS_RUNTIME_ERROR);
    CHECK(sense_error_message(err).len > 0);
    CHECK_CONTAINS(sense_error_rendered(err), "snapshot");
    sense_error_free(err);
    return 0;
}

/* What the damage tests share: a real snapshot, a scratch buffer of its
 * size, and a new runtime (with approve()) to restore into. */
typedef struct damage {
    uint8_t *data;
    uint8_t *scratch;
    size_t len;
    text_buf out;
    sense_runtime *rt;
} damage;

static int damage_open(damage *d) {
    d->data = NULL;
    d->len = 0;
    CHECK(snapshot_bytes(&d->data, &d->len) == 0);
    d->scratch = (uint8_t *)malloc(d->len);
    CHECK(d->scratch != NULL);
    d->rt = approval_runtime(&d->out, NULL);
    CHECK(d->rt != NULL);
    return 0;
}

static void damage_close(damage *d) {
    sense_runtime_free(d->rt);
    free(d->scratch);
    free(d->data);
}

/* Every prefix of a real snapshot, as is and resealed, is refused; the one
 * runtime stays new throughout and takes the whole snapshot at the end. */
static int test_every_truncation_is_refused(void) {
    damage d;
    CHECK(damage_open(&d) == 0);
    sense_error *err = NULL;
    CHECK_ERROR_HAS(sense_runtime_restore(d.rt, NULL, 0, &err), SENSE_STATUS_RUNTIME_ERROR, err,
                    "not a Sense snapshot");
    for (size_t n = 0; n < d.len; n++) {
        CHECK(check_refused(d.rt, d.data, n, n) == 0);
        if (n > 20) {
            memcpy(d.scratch, d.data, n);
            reseal(d.scratch, n);
            CHECK(check_refused(d.rt, d.scratch, n, n) == 0);
        }
    }
    CHECK_STATUS_ERR(sense_runtime_restore(d.rt, d.data, d.len, &err), SENSE_STATUS_OK, err);
    sense_agent a;
    CHECK_OK(sense_runtime_get_subject(d.rt, &a, NULL));
    CHECK(harness_resume(d.rt, a, sense_value_new_bool(true), SENSE_AGENT_STATUS_PAUSED) == 0);
    damage_close(&d);
    return 0;
}

/* A deterministic PRNG so failures reproduce. */
static uint64_t rng_state = 0x5eed5e45eULL;
static uint64_t rng_next(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Any single flipped bit is refused (magic, version, checksum or payload);
 * resealed random damage is refused or harmless, never a crash or panic. */
static int test_corruption_is_refused_or_harmless(void) {
    damage d;
    CHECK(damage_open(&d) == 0);
    uint8_t *bad = d.scratch;
    size_t len = d.len;
    sense_error *err = NULL;
    memcpy(bad, d.data, len);
    bad[0] ^= 0x20;
    CHECK_ERROR_HAS(sense_runtime_restore(d.rt, bad, len, &err), SENSE_STATUS_RUNTIME_ERROR, err,
                    "not a Sense snapshot");
    memcpy(bad, d.data, len);
    bad[8] ^= 0x04;
    CHECK_ERROR_HAS(sense_runtime_restore(d.rt, bad, len, &err), SENSE_STATUS_RUNTIME_ERROR, err,
                    "format version");
    for (size_t i = 0; i < len; i++) {
        memcpy(bad, d.data, len);
        bad[i] ^= (uint8_t)(1u << (i % 8));
        CHECK(check_refused(d.rt, bad, len, i) == 0);
    }

    int accepted = 0;
    for (int round = 0; round < 200; round++) {
        memcpy(bad, d.data, len);
        int flips = 1 + (int)(rng_next() % 4);
        for (int f = 0; f < flips; f++) {
            size_t at = 20 + (size_t)(rng_next() % (len - 20));
            bad[at] ^= (uint8_t)(1u << (rng_next() % 8));
        }
        reseal(bad, len);
        sense_runtime *r = budget_runtime(&d.out, 10000);
        CHECK(r != NULL);
        sense_status st = sense_runtime_restore(r, bad, len, &err);
        if (st == SENSE_STATUS_OK) {
            accepted++;
            sense_agent a;
            if (sense_runtime_get_subject(r, &a, NULL) == SENSE_STATUS_OK) {
                sense_value *yes = sense_value_new_bool(true);
                sense_status rs = sense_agent_resume(r, a, yes, NULL, NULL);
                sense_value_free(yes);
                CHECK(rs != SENSE_STATUS_PANIC);
            }
            CHECK(harness_run(r, "print(servers, deployed)\n", NULL) != SENSE_STATUS_PANIC);
        } else {
            if (st != SENSE_STATUS_RUNTIME_ERROR) {
                fprintf(stderr, "round %d: status %d\n", round, (int)st);
                return 1;
            }
            CHECK(sense_error_message(err).len > 0);
            sense_error_free(err);
            err = NULL;
        }
        sense_runtime_free(r);
    }
    fprintf(stderr, "%d of 200 resealed corruptions restored and ran without harm\n", accepted);
    damage_close(&d);
    return 0;
}

/* Snapshots are deterministic, and restoring then snapshotting gives the
 * same bytes. */
static int test_snapshots_are_deterministic(void) {
    text_buf out;
    sense_agent release;
    sense_runtime *rt = started_release(&out, &release);
    CHECK(rt != NULL);
    sense_bytes *a = NULL, *b = NULL, *c = NULL;
    CHECK_OK(sense_runtime_snapshot(rt, &a, NULL));
    CHECK_OK(sense_runtime_snapshot(rt, &b, NULL));
    CHECK(sense_bytes_len(a) == sense_bytes_len(b));
    CHECK(memcmp(sense_bytes_data(a), sense_bytes_data(b), sense_bytes_len(a)) == 0);
    sense_runtime_free(rt);

    rt = approval_runtime(&out, NULL);
    CHECK(rt != NULL);
    CHECK_OK(harness_restore(rt, a, NULL));
    CHECK_OK(sense_runtime_snapshot(rt, &c, NULL));
    CHECK(sense_bytes_len(c) == sense_bytes_len(a));
    CHECK(memcmp(sense_bytes_data(c), sense_bytes_data(a), sense_bytes_len(a)) == 0);
    sense_bytes_free(a);
    sense_bytes_free(b);
    sense_bytes_free(c);
    sense_runtime_free(rt);
    return 0;
}

/* The restoring runtime keeps its own configuration: a step budget set
 * there pauses the restored agent. */
static int test_restored_runtime_keeps_its_config(void) {
    const char *src =
        "agent counter:\n"
        "    n = pause(\"how many?\")\n"
        "    i = 0\n"
        "    while i < n:\n"
        "        i = i + 1\n"
        "    print(\"counted to\", i)\n";
    text_buf out;
    sense_runtime *rt = harness_program(&out, src);
    CHECK(rt != NULL);
    sense_agent counter;
    CHECK(harness_start(rt, "counter", &counter, SENSE_AGENT_STATUS_PAUSED) == 0);
    sense_bytes *bytes = NULL;
    CHECK_OK(sense_runtime_snapshot(rt, &bytes, NULL));
    sense_runtime_free(rt);

    rt = budget_runtime(&out, 50);
    CHECK(rt != NULL);
    CHECK_OK(harness_restore(rt, bytes, NULL));
    sense_bytes_free(bytes);
    /* No subject was set: none is restored. */
    sense_agent none;
    CHECK_STATUS(sense_runtime_get_subject(rt, &none, NULL), SENSE_STATUS_NOT_FOUND);
    CHECK(harness_resume(rt, counter, sense_value_new_int(1000), SENSE_AGENT_STATUS_PAUSED) == 0);
    CHECK(harness_check_pause(rt, counter, SENSE_PAUSE_KIND_BUDGET, NULL) == 0);
    sense_agent_status status = SENSE_AGENT_STATUS_PAUSED;
    while (status == SENSE_AGENT_STATUS_PAUSED) {
        CHECK_OK(sense_agent_resume(rt, counter, NULL, &status, NULL));
    }
    CHECK(status == SENSE_AGENT_STATUS_COMPLETED);
    CHECK_STR(text_buf_view(&out), "counted to 1000\n");
    sense_runtime_free(rt);
    return 0;
}

/* Restores the snapshot file tests/fixtures/NAME into `rt`; a file that
 * cannot be read (or is too short or too long to be one) is NOT_FOUND. */
static sense_status restore_fixture(sense_runtime *rt, const char *name, sense_error **err) {
    static uint8_t buf[65536];
    char path[256];
    snprintf(path, sizeof path, "../../fixtures/%s", name);
    FILE *f = fopen(path, "rb");
    size_t len = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    if (len <= 20 || len >= sizeof buf) {
        fprintf(stderr, "cannot read the snapshot %s (%zu bytes)\n", path, len);
        return SENSE_STATUS_NOT_FOUND;
    }
    return sense_runtime_restore(rt, buf, len, err);
}

/* A snapshot of the previous format (tests/fixtures/snapshot_v2.bin, from
 * before tools, actions, policy and the audit log moved out of the core
 * and their instructions became `Declare`) is refused with a message
 * naming both versions. */
static int test_old_format_snapshot_is_refused(void) {
    HARNESS_RUNTIME(rt, out);
    sense_error *err = NULL;
    CHECK_ERROR_HAS(restore_fixture(rt, "snapshot_v2.bin", &err), SENSE_STATUS_RUNTIME_ERROR, err,
                    "format version 2; this build reads version 5");
    sense_runtime_free(rt);
    return 0;
}

/* The snapshot the `sense start` CLI command wrote for
 * examples/interview.sns (tests/fixtures/snapshot_v5.bin) restores from C,
 * and its subject is the interviewer. */
static int test_cli_snapshot_restores(void) {
    HARNESS_RUNTIME(rt, out);
    sense_error *err = NULL;
    CHECK_STATUS_ERR(restore_fixture(rt, "snapshot_v5.bin", &err), SENSE_STATUS_OK, err);
    sense_agent interviewer;
    CHECK_OK(sense_runtime_get_subject(rt, &interviewer, NULL));
    CHECK(harness_check_pause(rt, interviewer, SENSE_PAUSE_KIND_ASK_HUMAN, "(1/3) name?") == 0);
    const char *answers[] = {"Ada", "3", "yes"};
    for (int i = 0; i < 3; i++) {
        sense_agent_status want = i < 2 ? SENSE_AGENT_STATUS_PAUSED : SENSE_AGENT_STATUS_COMPLETED;
        CHECK(harness_resume(rt, interviewer, harness_string(answers[i]), want) == 0);
    }
    CHECK_STR(text_buf_view(&out),
              "summary: [name=Ada, years of experience=3, ready to start=yes]\n");
    sense_runtime_free(rt);
    return 0;
}

/* The subject can be changed and cleared; stale ids are refused. */
static int test_subject(void) {
    text_buf out;
    sense_agent release, got;
    sense_runtime *rt = started_release(&out, &release);
    CHECK(rt != NULL);
    sense_error *err = NULL;
    CHECK_ERROR(sense_runtime_get_subject(rt, &got, &err), SENSE_STATUS_NOT_FOUND, err,
                "the runtime has no subject agent");
    CHECK_OK(sense_runtime_set_subject(rt, &release, NULL));
    CHECK_OK(sense_runtime_get_subject(rt, &got, NULL));
    CHECK(got.serial == release.serial && got.index == release.index);
    CHECK_OK(sense_runtime_set_subject(rt, NULL, NULL));
    CHECK_STATUS(sense_runtime_get_subject(rt, &got, NULL), SENSE_STATUS_NOT_FOUND);

    sense_agent forged = release;
    forged.serial += 1000;
    CHECK_STATUS_ERR(sense_runtime_set_subject(rt, &forged, &err), SENSE_STATUS_NOT_FOUND, err);
    CHECK(sense_error_status(err) == SENSE_STATUS_NOT_FOUND);
    sense_error_free(err);
    CHECK_STATUS(sense_runtime_get_subject(rt, &got, NULL), SENSE_STATUS_NOT_FOUND);
    sense_runtime_free(rt);
    return 0;
}

static int test_null_arguments(void) {
    HARNESS_RUNTIME(rt, out);
    sense_bytes *bytes = NULL;
    sense_agent a = {0, 0};
    sense_error *err = NULL;
    const uint8_t one = 0;

    /* Argument errors are static: freeing them does nothing. */
    CHECK_ERROR(sense_runtime_snapshot(NULL, &bytes, &err), SENSE_STATUS_INVALID_ARGUMENT, err,
                "argument `runtime` is NULL");
    CHECK_ERROR(sense_runtime_snapshot(rt, NULL, &err), SENSE_STATUS_INVALID_ARGUMENT, err,
                "argument `out` is NULL");
    CHECK(bytes == NULL);

    CHECK_ERROR(sense_runtime_restore(NULL, &one, 1, &err), SENSE_STATUS_INVALID_ARGUMENT, err,
                "argument `runtime` is NULL");
    CHECK_ERROR(sense_runtime_restore(rt, NULL, 5, &err), SENSE_STATUS_INVALID_ARGUMENT, err,
                "argument `data` is NULL but `len` is not 0");
    CHECK_STATUS(sense_runtime_restore(rt, &one, 1, NULL), SENSE_STATUS_RUNTIME_ERROR);

    CHECK(sense_bytes_data(NULL) == NULL);
    CHECK(sense_bytes_len(NULL) == 0);
    sense_bytes_free(NULL);

    CHECK_ERROR(sense_runtime_set_subject(NULL, &a, &err), SENSE_STATUS_INVALID_ARGUMENT, err,
                "argument `runtime` is NULL");
    CHECK_OK(sense_runtime_set_subject(rt, NULL, NULL)); /* clears: nothing to clear */
    CHECK_STATUS(sense_runtime_get_subject(NULL, &a, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_ERROR(sense_runtime_get_subject(rt, NULL, &err), SENSE_STATUS_INVALID_ARGUMENT, err,
                "argument `out` is NULL");

    /* A runtime that ran nothing snapshots and restores too. */
    CHECK_OK(sense_runtime_snapshot(rt, &bytes, NULL));
    sense_runtime *copy = NULL;
    CHECK_OK(sense_runtime_new(&copy, NULL));
    CHECK_OK(harness_restore(copy, bytes, NULL));
    sense_bytes_free(bytes);
    sense_runtime_free(copy);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_approval_flow_across_runtimes), TEST(test_missing_host_function_is_named),
             TEST(test_missing_provider_is_named), TEST(test_restore_needs_a_new_runtime),
             TEST(test_every_truncation_is_refused), TEST(test_corruption_is_refused_or_harmless),
             TEST(test_snapshots_are_deterministic), TEST(test_restored_runtime_keeps_its_config),
             TEST(test_old_format_snapshot_is_refused), TEST(test_cli_snapshot_restores),
             TEST(test_subject), TEST(test_null_arguments))
