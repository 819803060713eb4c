// The approval workflow from C++17 through the RAII wrapper in sense.hpp:
// start -> ask_human -> resume, a host function that suspends, one that
// throws, a snapshot carried to a new runtime, and errors surfacing as
// exceptions.
#include "host_test.hpp"

#include <string>

static const char *WORKFLOW = R"SNS(servers = ["web-1", "web-2"]
deployed = []
agent release:
    print("preparing v2.1")
    answer = ask_human("Deploy v2.1 to " + str(len(servers)) + " servers? (yes/no)")
    if answer != "yes":
        print("release cancelled")
        return
    for h in servers:
        if check(h):
            push(deployed, h)
    print("deployed to", len(deployed), "servers")
)SNS";

static int approval_flow(const char *answer, const char *expected_output, int64_t deployed) {
    std::string out;
    sense::Runtime rt;
    rt.capture_output(&out);
    rt.register_fn("check", 1, [](const std::vector<const sense_value *> &args) {
        sense_str host{};
        sense_value_as_string(args.at(0), &host, nullptr);
        return sense::Reply{sense::Value::of(sense::view(host) == "web-1"), false};
    });
    sense_agent release = start_paused(rt, "release.sns", WORKFLOW, "release");
    CHECK(rt.pause_kind(release) == SENSE_PAUSE_KIND_ASK_HUMAN);
    CHECK(rt.pause_reason(release).as_string() == "Deploy v2.1 to 2 servers? (yes/no)");
    CHECK(rt.resume(release, sense::Value::of(std::string_view(answer))) ==
          SENSE_AGENT_STATUS_COMPLETED);
    CHECK(out == expected_output);
    size_t n = 99;
    sense::Value d = rt.global("deployed");
    sense_value_list_len(d.get(), &n, nullptr);
    CHECK(static_cast<int64_t>(n) == deployed);
    return 0;
}

static int test_approved() {
    return approval_flow("yes", "preparing v2.1\ndeployed to 1 servers\n", 1);
}

static int test_rejected() { return approval_flow("no", "preparing v2.1\nrelease cancelled\n", 0); }

// approve(what): suspends the calling agent with "approve <what>?".
static sense::Reply approve(const std::vector<const sense_value *> &args) {
    sense_str what{};
    sense_value_as_string(args.at(0), &what, nullptr);
    return sense::Reply{sense::Value::of("approve " + std::string(sense::view(what)) + "?"), true};
}

static int test_suspending_host_function() {
    std::string out;
    sense::Runtime rt;
    rt.capture_output(&out);
    rt.register_fn("approve", 1, approve);
    sense_agent a = start_paused(
        rt, "a.sns", "agent a:\n    ok = approve(\"deploy\")\n    print(\"approved:\", ok)\n", "a");
    CHECK(rt.pause_kind(a) == SENSE_PAUSE_KIND_HOST_FUNCTION);
    CHECK(rt.pause_reason(a).as_string() == "approve deploy?");
    CHECK(rt.resume(a, sense::Value::of(true)) == SENSE_AGENT_STATUS_COMPLETED);
    CHECK(out == "approved: true\n");
    return 0;
}

// The approval paused in a host function travels as bytes to a new
// runtime, which registers the function again and finishes the job.
static int test_snapshot_to_a_new_runtime() {
    const char *src = "agent a:\n    print(\"asking\")\n    ok = approve(\"deploy\")\n"
                      "    print(\"approved:\", ok)\n";
    std::vector<uint8_t> bytes;
    {
        std::string out;
        sense::Runtime rt;
        rt.capture_output(&out);
        rt.register_fn("approve", 1, approve);
        sense_agent a = start_paused(rt, "a.sns", src, "a");
        CHECK(!rt.subject());
        rt.set_subject(a);
        bytes = rt.snapshot();
        CHECK(out == "asking\n");
    }
    {
        sense::Runtime bare;
        auto e = error_of([&] { bare.restore(bytes); });
        CHECK(e && e->status() == SENSE_STATUS_RUNTIME_ERROR);
        CHECK(has(e->message(), "host function 'approve'"));
    }
    std::string out;
    sense::Runtime rt;
    rt.capture_output(&out);
    rt.register_fn("approve", 1, approve);
    rt.restore(bytes);
    std::optional<sense_agent> a = rt.subject();
    CHECK(a.has_value());
    CHECK(rt.pause_kind(*a) == SENSE_PAUSE_KIND_HOST_FUNCTION);
    CHECK(rt.pause_reason(*a).as_string() == "approve deploy?");
    CHECK(rt.resume(*a, sense::Value::of(true)) == SENSE_AGENT_STATUS_COMPLETED);
    CHECK(out == "approved: true\n");
    auto e2 = error_of([&] { rt.restore(bytes); });
    CHECK(e2 && e2->status() == SENSE_STATUS_WRONG_STATE);
    return 0;
}

static int test_errors_are_exceptions() {
    sense::Runtime rt;
    std::string out;
    rt.capture_output(&out);
    rt.register_fn("boom", 0, [](const std::vector<const sense_value *> &) -> sense::Reply {
        throw std::runtime_error("boom from C++");
    });
    auto e = error_of([&] { rt.run("s.sns", "x = (1 +\n"); });
    CHECK(e && e->status() == SENSE_STATUS_SYNTAX_ERROR);
    CHECK(e->class_name() == "SenseSyntaxError");
    CHECK(e->line() >= 1);
    auto e2 = error_of([&] { rt.run("b.sns", "boom()\n"); });
    CHECK(e2 && e2->status() == SENSE_STATUS_RUNTIME_ERROR);
    CHECK(has(e2->message(), "boom from C++"));
    auto e3 = error_of([&] { rt.agent("nobody"); });
    CHECK(e3 && e3->status() == SENSE_STATUS_NOT_FOUND);
    return 0;
}

int main() {
    return run_tests({TEST(test_approved), TEST(test_rejected), TEST(test_suspending_host_function),
                      TEST(test_snapshot_to_a_new_runtime), TEST(test_errors_are_exceptions)});
}
