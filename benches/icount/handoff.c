/* The hand-off round trip as a C host does it, for the instruction-count
 * guard (run.py runs it under callgrind with two round-trip counts and
 * divides the difference, which cancels start-up and set-up).
 *
 * One round trip: make an Int `sense_value`, `sense_agent_resume` the agent
 * with it, free it, read the agent's new pause value with
 * `sense_agent_pause_reason` + `sense_value_as_int`, free that copy: the
 * same work as the "C ABI: send Int, read pause value" criterion bench.
 *
 * With `direct`, the allocation-free round trip instead:
 * `sense_agent_resume_int`, then `sense_agent_pause_reason_int` (nothing
 * made or freed).
 *
 * Usage: handoff ROUND_TRIPS [direct]   (prints the sum of the values read back) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sense.h"

static const char PROGRAM[] =
    "agent worker:\n"
    "    x = 0\n"
    "    while true:\n"
    "        x = pause(x + 1)\n";

static void check(const char *what, enum sense_status st, struct sense_error *err) {
    if (st == SENSE_STATUS_OK) return;
    sense_str s = sense_error_rendered(err);
    fprintf(stderr, "%s failed (%d): %.*s\n", what, (int)st, (int)s.len, s.ptr ? s.ptr : "");
    sense_error_free(err);
    exit(1);
}

int main(int argc, char **argv) {
    if (argc != 2 && !(argc == 3 && strcmp(argv[2], "direct") == 0)) {
        fprintf(stderr, "usage: %s ROUND_TRIPS [direct]\n", argv[0]);
        return 2;
    }
    long n = strtol(argv[1], NULL, 10);
    int direct = argc == 3;
    struct sense_error *err = NULL;
    struct sense_runtime *rt = NULL;
    check("sense_runtime_new", sense_runtime_new(&rt, &err), err);
    check("sense_runtime_run_source",
          sense_runtime_run_source(rt, "handoff.sns", 11, PROGRAM, strlen(PROGRAM), &err), err);
    struct sense_agent agent;
    check("sense_agent_lookup", sense_agent_lookup(rt, "worker", 6, &agent, &err), err);
    enum sense_agent_status status;
    check("sense_agent_start", sense_agent_start(rt, agent, &status, &err), err);
    int64_t sum = 0;
    for (long i = 0; direct && i < n; i++) {
        check("sense_agent_resume_int", sense_agent_resume_int(rt, agent, i, &status, &err), err);
        int64_t got = 0;
        check("sense_agent_pause_reason_int", sense_agent_pause_reason_int(rt, agent, &got, &err), err);
        if (status != SENSE_AGENT_STATUS_PAUSED || got != i + 1) {
            fprintf(stderr, "round trip %ld: status %d, read %lld\n", i, (int)status, (long long)got);
            return 1;
        }
        sum += got;
    }
    for (long i = 0; !direct && i < n; i++) {
        struct sense_value *v = sense_value_new_int(i);
        check("sense_agent_resume", sense_agent_resume(rt, agent, v, &status, &err), err);
        sense_value_free(v);
        if (status != SENSE_AGENT_STATUS_PAUSED) {
            fprintf(stderr, "agent not paused after round trip %ld\n", i);
            return 1;
        }
        struct sense_value *reason = NULL;
        check("sense_agent_pause_reason", sense_agent_pause_reason(rt, agent, &reason, &err), err);
        int64_t got = 0;
        check("sense_value_as_int", sense_value_as_int(reason, &got, &err), err);
        sense_value_free(reason);
        if (got != i + 1) {
            fprintf(stderr, "round trip %ld read %lld, expected %ld\n", i, (long long)got, i + 1);
            return 1;
        }
        sum += got;
    }
    sense_runtime_free(rt);
    printf("%lld\n", (long long)sum);
    return 0;
}
