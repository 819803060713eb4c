// Maps through sense.hpp: a Sense map read as ordered pairs and looked up
// by key, a host map (std::vector<std::pair<Value, Value>>) passed in as a
// global and as a resume value.
#include "host_test.hpp"

#include <string>
#include <utility>
#include <vector>

using sense::Value;

static int maps_both_ways() {
    sense::Runtime rt;
    std::string out;
    rt.capture_output(&out);
    rt.run("m.sns", "m = {\"z\": 1, \"a\": [2], 3: {\"in\": true}}\n");
    Value m = rt.global("m");
    CHECK(m.is_map() && m.type_name() == "Map");
    auto entries = m.as_map();
    CHECK(entries.size() == 3);
    CHECK(entries[0].first.as_string() == "z" && entries[0].second.as_int() == 1);
    CHECK(entries[1].first.as_string() == "a" && entries[1].second.as_list().size() == 1);
    CHECK(entries[2].first.as_int() == 3 && entries[2].second.is_map());
    CHECK(m.get(Value::of(3)).value().get(Value::of("in")).value().as_bool());
    CHECK(!m.get(Value::of("missing")).has_value());
    CHECK(!m.get(Value::of(true)).has_value());  // Bool true is not Int 1's key

    Value host = Value::map({{Value::of("name"), Value::of("ada")},
                             {Value::of(7), Value::of(1.5)},
                             {Value::of("name"), Value::of("grace")}});
    CHECK(host.as_map().size() == 2);
    host.set(Value::of(false), Value::map());
    rt.set_global("person", host);
    rt.run("p.sns", "print(person, len(person))\n");
    CHECK(out == "{name: grace, 7: 1.5, false: {}} 3\n");
    auto e = error_of([&] { host.set(Value::of(1.5), Value::nil()); });
    CHECK(e && e->status() == SENSE_STATUS_INVALID_ARGUMENT);
    auto e2 = error_of([&] { Value::list({}).as_map(); });
    CHECK(e2 && e2->message() == "the value is not a Map");

    out.clear();
    sense::Agent a = start_paused(
        rt, "a.sns", "agent a:\n    answer = pause({\"q\": \"ok?\"})\n    print(answer[\"ok\"])\n",
        "a");
    CHECK(rt.pause_reason(a).get(Value::of("q")).value().as_string() == "ok?");
    CHECK(rt.resume(a, Value::map({{Value::of("ok"), Value::of(true)}})) ==
          SENSE_AGENT_STATUS_COMPLETED);
    CHECK(out == "true\n");
    return 0;
}

int main() {
    return run_tests({TEST(maps_both_ways)});
}
