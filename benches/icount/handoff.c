/* The hand-off round trip as a C host does it, for the instruction-count
 * guard (run.py runs it under callgrind with two round-trip counts and
 * divides the difference, which cancels start-up and set-up).
 *
 * One round trip: make an Int `sense_value`, `sense_agent_resume` the agent
 * with it, free it, read the agent's new pause value with
 * `sense_agent_pause_reason` + `sense_value_as_int`, free that copy: the
 * same work as the "C ABI: send Int, read pause value" criterion bench.
 *
 * Usage: handoff ROUND_TRIPS   (prints the sum of the values read back) */
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
    if (argc != 2) {
        fprintf(stderr, "usage: %s ROUND_TRIPS\n", argv[0]);
        return 2;
    }
    long n = strtol(argv[1], NULL, 10);
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
    for (long i = 0; i < n; i++) {
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
