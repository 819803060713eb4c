/* Streamed answers and remote MCP from a C host (issue 25):
 * `ask(…, on_text: piece)` with a host function as `piece` gets the mock
 * model's answer piece by piece, in order, while `ask` runs; and
 * `connect_mcp(name, url: …)` reaches a Streamable HTTP MCP server
 * (tests/mcp/http_server.py, started here with python3 on loopback) whose
 * `add` tool a scripted mock model calls through `ask_with_tools`. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* What `piece` has been given. */
typedef struct pieces {
    text_buf text;
    int count;
} pieces;

/* piece(text): keeps one piece of a streamed answer. */
static void host_piece(void *user_data, sense_call *call) {
    pieces *p = (pieces *)user_data;
    const sense_value *v = NULL;
    sense_str s;
    if (sense_call_arg(call, 0, &v, NULL) != SENSE_STATUS_OK ||
        sense_value_as_string(v, &s, NULL) != SENSE_STATUS_OK) {
        const char *msg = "piece() expects a String";
        sense_call_fail(call, msg, strlen(msg), NULL);
        return;
    }
    p->count++;
    text_buf_append(&p->text, s);
}

static int test_on_text_gets_the_pieces_as_they_arrive(void) {
    text_buf out;
    pieces got = {{{0}, 0}, 0};
    sense_runtime *rt = harness_runtime(&out);
    CHECK(rt != NULL);
    CHECK_OK(sense_runtime_register_fn(rt, "piece", 5, 1, host_piece, &got, NULL, NULL));
    /* The program prints nothing until `ask` has returned: the pieces
     * reached the host first. */
    CHECK_OK(harness_run(rt,
                         "model m = inference(\"mock\")\n"
                         "set delegation = m\n"
                         "a = ask(\"two words\", on_text: piece)\n"
                         "print(a.value)\n",
                         NULL));
    CHECK(got.count == 5);
    CHECK_STR(text_buf_view(&got.text), "(mock reasoning about: two words)");
    CHECK_STR(text_buf_view(&out), "(mock reasoning about: two words)\n");
    sense_runtime_free(rt);
    return 0;
}

/* Starts the fake Streamable HTTP MCP server; its URL into `url`.
 * Returns its pid, or -1 (with a message) when it cannot start. */
static pid_t start_fake_server(char *url, size_t cap) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        unsetenv("FAKE_MCP_TOKEN"); /* no bearer token asked for */
        /* The hosts run from tests/hosts/c. */
        execlp("python3", "python3", "../../mcp/http_server.py", "/dev/null", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    /* Its first line is the port it listens on. */
    char line[32];
    size_t n = 0;
    while (n < sizeof line - 1 && read(fds[0], line + n, 1) == 1 && line[n] != '\n') n++;
    close(fds[0]);
    line[n] = '\0';
    int port = atoi(line);
    if (port <= 0) {
        fprintf(stderr, "the fake MCP server (python3 tests/mcp/http_server.py) did not start\n");
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
        return -1;
    }
    snprintf(url, cap, "http://127.0.0.1:%d/mcp", port);
    return pid;
}

static int test_remote_mcp_tools_through_libsense(void) {
    char url[64];
    pid_t server = start_fake_server(url, sizeof url);
    CHECK(server > 0);
    text_buf out;
    sense_runtime *rt = harness_runtime(&out);
    int failed = rt == NULL;
    char src[1024];
    snprintf(src, sizeof src,
             "s = connect_mcp(\"fake\", url: \"%s\")\n"
             "print(s)\n"
             "model m = inference(\"mock\", tool_calls: [[\"fake.add\", {\"a\": 2, \"b\": 5}]],\n"
             "                    response_template: \"sum: {results}\")\n"
             "set delegation = m\n"
             "print(ask_with_tools(\"add 2 and 5\", s.tools).value)\n"
             "s.close()\n",
             url);
    sense_error *err = NULL;
    if (!failed && (sense_runtime_register_default_providers(rt, NULL) != SENSE_STATUS_OK ||
                    harness_run(rt, src, &err) != SENSE_STATUS_OK)) {
        fprintf(stderr, "%s:%d: the program failed: %.*s\n", __FILE__, __LINE__,
                err ? (int)sense_error_message(err).len : 0,
                err ? sense_error_message(err).ptr : "");
        failed = 1;
    }
    sense_error_free(err);
    /* The tool's answer came back from the server through the mock. */
    if (!failed && !harness_str_eq(text_buf_view(&out), "<mcp server fake (2 tools)>\nsum: 7\n")) {
        fprintf(stderr, "unexpected output:\n%s\n", out.data);
        failed = 1;
    }
    if (rt) sense_runtime_free(rt);
    kill(server, SIGTERM);
    waitpid(server, NULL, 0);
    return failed;
}

HARNESS_MAIN(TEST(test_on_text_gets_the_pieces_as_they_arrive),
             TEST(test_remote_mcp_tools_through_libsense))
