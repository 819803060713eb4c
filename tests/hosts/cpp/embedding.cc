// The shipped C++ wrapper, include/sense.hpp, over the embedding calls of
// issue 16: config limits, globals, calling functions, members, agents in
// arrays, holds, callers of host functions, pause reason views, pause
// handles, input, snapshots as byte vectors, and errors as exceptions.
#include "host_test.hpp"

#include <string>

// ANCHOR: globals_and_calls
static int globals_and_calls() {
    sense::Runtime rt;
    std::string out;
    rt.capture_output(&out);
    rt.set_global("limit", sense::Value::of(3));
    rt.run("m.sns", "def area(w, h):\n    return w * h * limit\nprint(limit)\n");
    CHECK(out == "3\n");
    CHECK(rt.call("area", {sense::Value::of(2), sense::Value::of(7)}).as_int() == 42);
    CHECK(rt.global("limit").as_int() == 3);
    auto e = error_of([&] { rt.call("missing"); });
    CHECK(e && e->status() == SENSE_STATUS_NOT_FOUND);
    rt.run("f.sns", "def fail():\n    return 1 / 0\n");
    auto e2 = error_of([&] { rt.call("fail"); });
    CHECK(e2 && e2->status() == SENSE_STATUS_RUNTIME_ERROR);
    CHECK(e2->line() == 2);
    CHECK(has(e2->message(), "division by zero"));
    sense::Value l = sense::Value::list({sense::Value::of(1), sense::Value::of("two"), sense::Value::of(2.5)});
    rt.set_global("items", l);
    auto items = rt.global("items").as_list();
    CHECK(items.size() == 3 && items[1].as_string() == "two" && items[2].as_float() == 2.5);
    return 0;
}
// ANCHOR_END: globals_and_calls

// ANCHOR: members_holds_views
static int agents_members_holds_and_views() {
    sense::Runtime rt;
    std::string out;
    rt.capture_output(&out);
    rt.run("m.sns",
           "agent acc:\n"
           "    total = 0\n"
           "    while true:\n"
           "        total = total + pause(\"more?\")\n"
           "team = [acc]\n");
    sense::Agent acc = rt.agent_at("team", {0});
    rt.run("boss.sns", "agent boss:\n    agent helper:\n        n = 0\n    crew = [helper]\n    pause()\n");
    sense::Agent boss = rt.agent("boss");
    rt.start(boss);
    CHECK(rt.start(rt.agent_in_member(boss, "crew", {0})) == SENSE_AGENT_STATUS_COMPLETED);
    CHECK(rt.start(acc) == SENSE_AGENT_STATUS_PAUSED);
    CHECK(rt.pause_reason_string(acc).value() == "more?");
    CHECK(!rt.pause_reason_int(acc).has_value());
    rt.resume(acc, sense::Value::of(5));
    CHECK(rt.member(acc, "total").as_int() == 5);
    {
        sense::AgentHold hold = rt.hold(acc);
        rt.run("drop.sns", "team = nil\nacc = nil\nfor i in range(300000):\n    s = str(i)\n");
        CHECK(rt.status(acc) == SENSE_AGENT_STATUS_PAUSED);
    }
    rt.run("more.sns", "for i in range(300000):\n    s = str(i)\n");
    auto e = error_of([&] { rt.status(acc); });
    CHECK(e && e->status() == SENSE_STATUS_NOT_FOUND);
    return 0;
}
// ANCHOR_END: members_holds_views

static int callers_input_config_snapshots() {
    sense::Config cfg;
    cfg.max_heap(64u << 20).max_depth(200);
    sense::Runtime rt(cfg);
    std::string out;
    rt.capture_output(&out);
    std::string caller;
    rt.register_call("whoami", 0, [&](const sense::Call &c) {
        caller = c.agent() ? "agent" : "main";
        return sense::Reply{sense::Value::of(caller), false};
    });
    rt.register_fn("twice", 1, [](const std::vector<const sense_value *> &args) {
        int64_t n = 0;
        sense::check([&](sense_error **e) { return sense_value_as_int(args.at(0), &n, e); });
        if (n < 0) throw std::runtime_error("negative");
        return sense::Reply{sense::Value::of(2 * n), false};
    });
    int asked = 0;
    rt.on_input([&]() -> std::optional<std::string> {
        if (asked++) return std::nullopt;
        return std::string("Ada\n");
    });
    rt.run("m.sns", "print(whoami())\nname = ask_human(\"name?\")\nagent a:\n    n = pause(twice(21))\n    print(whoami(), n)\n");
    CHECK(caller == "main");
    CHECK(rt.global("name").as_string() == "Ada");
    sense::Agent a = rt.agent("a");
    rt.start(a);
    CHECK(rt.pause_reason_int(a).value() == 42);
    auto e = error_of([&] { rt.run("neg.sns", "twice(-1)\n"); });
    CHECK(e && e->message() == "negative");
    CHECK(e->line() == 1);
    sense::PauseHandle h = rt.pause_handle(a);
    CHECK(h.request());
    CHECK(h.is_requested());
    std::vector<uint8_t> bytes = rt.snapshot();
    CHECK(!bytes.empty());

    sense::Runtime later;
    std::string out2;
    later.capture_output(&out2);
    later.register_call("whoami", 0, [](const sense::Call &c) {
        return sense::Reply{sense::Value::of(c.agent() ? "agent" : "main"), false};
    });
    later.register_fn("twice", 1, [](const std::vector<const sense_value *> &) {
        return sense::Reply{sense::Value::of(0), false};
    });
    later.restore(bytes);
    sense::Agent a2 = later.agent("a");
    CHECK(later.resume(a2, sense::Value::of("done")) == SENSE_AGENT_STATUS_COMPLETED);
    CHECK(out2 == "agent done\n");
    return 0;
}

static int agents_inside_values() {
    sense::Runtime rt;
    std::string out;
    rt.capture_output(&out);
    rt.register_call("relay", 1, [](const sense::Call &c) {
        // An agent taken out of a host function's argument and handed back.
        sense::Agent w = c.arg(0).as_list().at(0).as_agent();
        return sense::Reply{sense::Value::of(w), false};
    });
    rt.run("m.sns",
           "agent w:\n    n = pause(\"w waits\")\n"
           "agent boss:\n    got = pause([1, w])\n    print(got.name)\n"
           "def same(a):\n    return a == w\n"
           "print(relay([w]) == w)\n");
    CHECK(out == "true\n");
    sense::Agent boss = rt.agent("boss");
    rt.start(boss);
    std::vector<sense::Value> reason = rt.pause_reason(boss).as_list();
    CHECK(!reason.at(0).is_agent());
    CHECK(reason.at(1).is_agent() && reason.at(1).type_name() == "Agent");
    CHECK(reason.at(1).as_string() == "<agent w status=created>");
    sense::Agent w = reason.at(1).as_agent();
    CHECK(rt.start(w) == SENSE_AGENT_STATUS_PAUSED);
    CHECK(rt.call("same", {sense::Value::of(w)}).as_bool());
    CHECK(rt.resume(boss, sense::Value::of(w)) == SENSE_AGENT_STATUS_COMPLETED);
    CHECK(out == "true\nw\n");
    auto e = error_of([&] { reason.at(0).as_agent(); });
    CHECK(e && e->status() == SENSE_STATUS_INVALID_ARGUMENT);
    // Another runtime with the same program refuses this runtime's agent.
    sense::Runtime other;
    other.capture_output(&out);
    other.run("m.sns", "agent w:\n    n = 1\ndef same(a):\n    return a == w\n");
    auto e2 = error_of([&] { other.call("same", {sense::Value::of(w)}); });
    CHECK(e2 && e2->status() == SENSE_STATUS_RUNTIME_ERROR);
    CHECK(has(e2->message(), "another runtime"));
    return 0;
}

static int resume_without_values() {
    sense::Runtime rt;
    rt.on_output([](std::string_view) {});
    sense::Agent w = start_paused(
        rt, "echo.sns", "agent w:\n    x = 0\n    while true:\n        x = pause(x)\n", "w");
    CHECK(rt.resume_int(w, 41) == SENSE_AGENT_STATUS_PAUSED);
    CHECK(rt.pause_reason_int(w).value() == 41);
    CHECK(rt.resume_string(w, "yes") == SENSE_AGENT_STATUS_PAUSED);
    CHECK(rt.pause_reason_string(w).value() == "yes");
    auto e = error_of([&] { rt.resume_string(w, std::string_view("\xff", 1)); });
    CHECK(e && e->status() == SENSE_STATUS_INVALID_UTF8);
    return 0;
}

int main() {
    return run_tests({TEST(resume_without_values), TEST(agents_inside_values),
                      TEST(globals_and_calls), TEST(agents_members_holds_and_views),
                      TEST(callers_input_config_snapshots)});
}
