/*
 * The complete example of "Embedding Sense" in README.md and
 * sense-ffi/README.md: run a program, drive an agent through ask_human,
 * answer it, read a result.
 * Built by the test suite statically, dynamically and through pkg-config.
 */
#include <sense.h>

#include <stdio.h>
#include <string.h>

static void print_error(sense_error *err) {
    sense_str text = sense_error_rendered(err); /* NUL-terminated */
    fprintf(stderr, "%s\n", text.ptr);
    sense_error_free(err);
}

int main(void) {
    const char *src =
        "agent greeter:\n"
        "    name = ask_human(\"What is your name?\")\n"
        "    greeting = \"Hello, \" + name + \"!\"\n"
        "    print(greeting)\n";

    sense_runtime *rt = NULL;
    sense_error *err = NULL;
    if (sense_runtime_new(&rt, &err) != SENSE_STATUS_OK) {
        print_error(err);
        return 1;
    }
    if (sense_runtime_run_source(rt, "main.sns", 8, src, strlen(src), &err) != SENSE_STATUS_OK) {
        print_error(err);
        sense_runtime_free(rt);
        return 1;
    }

    sense_agent greeter;
    sense_agent_status status;
    if (sense_agent_lookup(rt, "greeter", 7, &greeter, &err) != SENSE_STATUS_OK ||
        sense_agent_start(rt, greeter, &status, &err) != SENSE_STATUS_OK) {
        print_error(err);
        sense_runtime_free(rt);
        return 1;
    }

    while (status == SENSE_AGENT_STATUS_PAUSED) {
        sense_value *question = NULL;
        sense_str text;
        sense_agent_pause_reason(rt, greeter, &question, NULL);
        if (sense_value_as_string(question, &text, NULL) == SENSE_STATUS_OK) {
            printf("agent asks: %.*s\n", (int)text.len, text.ptr);
            fflush(stdout);
        }
        sense_value_free(question);

        sense_value *answer = NULL;
        sense_value_new_string("Ada", 3, &answer, NULL);
        sense_status st = sense_agent_resume(rt, greeter, answer, &status, &err);
        sense_value_free(answer);
        if (st != SENSE_STATUS_OK) {
            print_error(err);
            sense_runtime_free(rt);
            return 1;
        }
    }

    sense_runtime_free(rt); /* also frees agents and callbacks */
    printf("1 passed, 0 failed\n");
    return 0;
}
