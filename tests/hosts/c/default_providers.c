/* sense_runtime_register_default_providers: the OpenAI/Anthropic providers
 * and the MCP client of the `sense` command, opted in with one call. No
 * network is used: the key check and a missing MCP server fail before. */
#include "harness.h"

/* Declared here too, so this compiles before include/sense.h is
 * regenerated with it (a compatible redeclaration afterwards). */
sense_status sense_runtime_register_default_providers(sense_runtime *runtime,
                                                      sense_error **error);

static int test_defaults_registered(void) {
    HARNESS_RUNTIME(rt, out);
    sense_error *err = NULL;
    CHECK_ERROR_HAS(harness_run(rt, "model m = inference(\"openai\")\n", &err),
                    SENSE_STATUS_RUNTIME_ERROR, err, "unknown provider 'openai'");

    CHECK_OK(sense_runtime_register_default_providers(rt, NULL));
    err = NULL;
    CHECK_ERROR_HAS(harness_run(rt,
                                "model m = inference(\"anthropic\", api_key_env: "
                                "\"SENSE_C_HOST_NO_SUCH_KEY\")\n",
                                &err),
                    SENSE_STATUS_RUNTIME_ERROR, err,
                    "inference() needs the 'SENSE_C_HOST_NO_SUCH_KEY' environment variable");
    CHECK_STATUS_ERR(harness_run(rt, "s = connect_mcp(\"x\", \"sense-c-no-such-server\", [])\n",
                                 &err),
                     SENSE_STATUS_RUNTIME_ERROR, err);
    /* FileNotFoundError when the spawn itself fails; under valgrind the
     * spawn succeeds and the child exits at once: either way, a clean error
     * naming the command. */
    CHECK_CONTAINS(sense_error_message(err), "'sense-c-no-such-server'");
    sense_error_free(err);

    /* A server that closes its stdin and exits: the client's write fails
     * with EPIPE. The SIGPIPE it raises must not end this process (a C
     * host keeps SIGPIPE's default action, unlike a Rust main). */
    err = NULL;
    CHECK_ERROR_HAS(
        harness_run(rt, "s = connect_mcp(\"x\", \"sh\", [\"-c\", \"exec 0<&-; sleep 0.2\"])\n",
                    &err),
        SENSE_STATUS_RUNTIME_ERROR, err, "connect_mcp");

    CHECK(sense_runtime_register_default_providers(NULL, NULL) ==
          SENSE_STATUS_INVALID_ARGUMENT);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_defaults_registered))
