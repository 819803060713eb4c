//! What may follow a `.`: the methods and fields of the language's own
//! values (strings, arrays, maps, errors, agents, models, …) and the
//! functions of the built-in modules (`json`, `math`, `time`, `os`,
//! `random`, `re`), each with its signature and one line about it — for
//! completion after `.`, hover and signature help.

/// One member: its name, its signature as a reader writes the call, and
/// what it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    /// The name after the dot.
    pub name: &'static str,
    /// How it is called (`split(sep?)`) or read (`status`).
    pub signature: &'static str,
    /// One line about it.
    pub about: &'static str,
}

impl Member {
    /// Whether it is called (a method or module function) rather than read.
    pub fn is_method(&self) -> bool {
        self.signature.contains('(')
    }

    /// The parameter texts of its signature (`["sep?"]` for `split(sep?)`).
    pub fn params(&self) -> Vec<&'static str> {
        let inside = self
            .signature
            .split_once('(')
            .and_then(|(_, rest)| rest.rsplit_once(')'))
            .map_or("", |(inside, _)| inside);
        inside
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect()
    }
}

const fn m(name: &'static str, signature: &'static str, about: &'static str) -> Member {
    Member {
        name,
        signature,
        about,
    }
}

const STRING: &[Member] = &[
    m(
        "split",
        "split(sep?)",
        "the parts between each `sep` (by default runs of whitespace)",
    ),
    m(
        "strip",
        "strip()",
        "without leading and trailing whitespace",
    ),
    m("lstrip", "lstrip()", "without leading whitespace"),
    m("rstrip", "rstrip()", "without trailing whitespace"),
    m("lower", "lower()", "in lower case"),
    m("upper", "upper()", "in upper case"),
    m(
        "replace",
        "replace(old, new)",
        "every `old` replaced by `new`",
    ),
    m(
        "starts_with",
        "starts_with(prefix)",
        "whether it begins with `prefix`",
    ),
    m(
        "ends_with",
        "ends_with(suffix)",
        "whether it ends with `suffix`",
    ),
    m("find", "find(sub)", "the index of the first `sub`, or -1"),
    m(
        "count",
        "count(sub)",
        "how many times `sub` occurs (not overlapping)",
    ),
    m(
        "slice",
        "slice(start, end?)",
        "the code points from `start` up to `end` (negative counts from the end)",
    ),
    m(
        "join",
        "join(items)",
        "the items shown as `str()` shows them, with this string between them",
    ),
    m("lines", "lines()", "the lines, without their line ends"),
];

const ARRAY: &[Member] = &[
    m(
        "push",
        "push(value)",
        "appends `value` in place; returns the array",
    ),
    m(
        "pop",
        "pop(index?)",
        "removes and returns the last element (or the one at `index`)",
    ),
    m(
        "insert",
        "insert(index, value)",
        "inserts `value` before `index`, in place",
    ),
    m(
        "remove",
        "remove(value)",
        "removes the first element equal to `value`, in place",
    ),
    m(
        "index",
        "index(value)",
        "the index of the first element equal to `value`, or -1",
    ),
    m(
        "contains",
        "contains(value)",
        "whether an element equals `value`",
    ),
    m(
        "slice",
        "slice(start, end?)",
        "a new array of the elements from `start` up to `end`",
    ),
    m("reverse", "reverse()", "reverses the array in place"),
    m(
        "sort",
        "sort(key?)",
        "sorts in place, stably (by `key(element)` when given)",
    ),
    m("sorted", "sorted()", "a sorted copy"),
    m("map", "map(f)", "a new array of `f(element)`"),
    m(
        "filter",
        "filter(f)",
        "a new array of the elements for which `f(element)` is truthy",
    ),
    m(
        "reduce",
        "reduce(f, init)",
        "folds the elements with `f(accumulated, element)` from `init`",
    ),
    m("copy", "copy()", "a shallow copy"),
];

const MAP: &[Member] = &[
    m("keys", "keys()", "the keys, in insertion order"),
    m("values", "values()", "the values, in insertion order"),
    m("items", "items()", "an array of `[key, value]` pairs"),
    m(
        "get",
        "get(key, default?)",
        "the value of `key`, or `default` (nil) when absent",
    ),
    m("has", "has(key)", "whether `key` is present"),
    m(
        "pop",
        "pop(key, default?)",
        "removes `key` and returns its value (or `default`)",
    ),
    m("copy", "copy()", "a shallow copy"),
];

const ERROR: &[Member] = &[
    m(
        "class",
        "class",
        "the error's class, e.g. \"SenseRuntimeError\"",
    ),
    m("message", "message", "the error's message"),
    m("line", "line", "the line it was raised at, or nil"),
];

const AGENT: &[Member] = &[
    m(
        "status",
        "status",
        "\"idle\", \"running\", \"paused\", \"completed\" or \"failed\"",
    ),
    m("name", "name", "the agent's name"),
    m(
        "pause_reason",
        "pause_reason",
        "what the agent paused with, while it is paused",
    ),
    m("doc", "doc", "the agent's doc string"),
];

const MODEL: &[Member] = &[
    m("name", "name", "the model's name"),
    m("ask", "ask(prompt)", "asks the model; returns its answer"),
];

const ANSWER: &[Member] = &[
    m("value", "value", "the answer's value"),
    m("confidence", "confidence", "the model's confidence, or nil"),
    m("source", "source", "which model answered"),
];

const MEMORY: &[Member] = &[
    m(
        "remember",
        "remember(key, value)",
        "stores `value` under `key`",
    ),
    m(
        "recall",
        "recall(key)",
        "the value stored under `key`, or nil",
    ),
    m("forget", "forget(key)", "removes `key`"),
    m("keys", "keys()", "the keys stored"),
    m(
        "history",
        "history(key)",
        "every value `key` has held (persistent memory)",
    ),
    m(
        "as_of",
        "as_of(key, time)",
        "the value `key` held at `time` (persistent memory)",
    ),
];

const ACTION: &[Member] = &[
    m("verify", "verify()", "runs the action's checks"),
    m("approve", "approve()", "approves the action"),
    m("commit", "commit()", "commits the action"),
    m("rollback", "rollback()", "rolls a committed action back"),
    m("state", "state", "the action's state"),
    m("name", "name", "the action's name"),
    m("kind", "kind", "\"reversible\" or \"irreversible\""),
    m("approved", "approved", "whether it was approved"),
];

const MCP_SERVER: &[Member] = &[
    m("name", "name", "the server's name"),
    m("tools", "tools", "the server's tools"),
    m("close", "close()", "ends the server's process"),
];

const JSON: &[Member] = &[
    m(
        "loads",
        "loads(text)",
        "the value a JSON text holds (objects become Maps)",
    ),
    m(
        "dumps",
        "dumps(value, indent?)",
        "the JSON text of a value (keys in insertion order)",
    ),
];

const MATH: &[Member] = &[
    m("pi", "pi", "π"),
    m("e", "e", "Euler's number"),
    m("inf", "inf", "positive infinity"),
    m("nan", "nan", "not a number"),
    m("floor", "floor(x)", "the largest Int not above `x`"),
    m("ceil", "ceil(x)", "the smallest Int not below `x`"),
    m("sqrt", "sqrt(x)", "the square root"),
    m("pow", "pow(x, y)", "`x` to the power `y`"),
    m("log", "log(x, base?)", "the logarithm (natural by default)"),
    m("exp", "exp(x)", "e to the power `x`"),
    m("sin", "sin(x)", "the sine (radians)"),
    m("cos", "cos(x)", "the cosine (radians)"),
    m("abs", "abs(x)", "the absolute value"),
    m("min", "min(items)", "the smallest element"),
    m("max", "max(items)", "the largest element"),
    m("sum", "sum(items)", "the sum of the elements"),
    m(
        "round",
        "round(x, ndigits?)",
        "rounded half to even, as Python rounds",
    ),
];

const TIME: &[Member] = &[
    m("now", "now()", "Unix time in seconds (Float)"),
    m(
        "monotonic",
        "monotonic()",
        "seconds on a clock that never goes back",
    ),
    m(
        "sleep",
        "sleep(seconds)",
        "waits; inside an agent, a durable timer (pause kind \"timer\")",
    ),
];

const OS: &[Member] = &[m(
    "getenv",
    "getenv(name, default?)",
    "an environment variable (capability `env.read`)",
)];

const RANDOM: &[Member] = &[
    m("random", "random()", "a Float in [0, 1)"),
    m("randint", "randint(a, b)", "an Int in [a, b]"),
    m("choice", "choice(items)", "one element of an array"),
    m(
        "seed",
        "seed(n)",
        "restarts the generator's sequence from `n`",
    ),
];

const RE: &[Member] = &[
    m(
        "search",
        "search(pattern, text)",
        "the first match as a Map {match, start, end, groups}, or nil",
    ),
    m(
        "findall",
        "findall(pattern, text)",
        "every match (or its groups)",
    ),
    m(
        "sub",
        "sub(pattern, replacement, text)",
        "the text with every match replaced",
    ),
    m("split", "split(pattern, text)", "the parts between matches"),
];

/// The members of values of type `type_name` (`String`, `Array`, `Map`,
/// `Error`, `Agent`, `Model`, `Answer`, `Memory`, `Action`, `McpServer`;
/// generic parameters ignored), if the language defines any.
pub fn of_type(type_name: &str) -> Option<&'static [Member]> {
    let base = type_name.split('<').next().unwrap_or(type_name).trim();
    Some(match base {
        "String" => STRING,
        "Array" => ARRAY,
        "Map" => MAP,
        "Error" => ERROR,
        "Agent" => AGENT,
        "Model" => MODEL,
        "Answer" | "answer" => ANSWER,
        "Memory" => MEMORY,
        "Action" => ACTION,
        "McpServer" => MCP_SERVER,
        _ => return None,
    })
}

/// The built-in module named `name` (`json`, `math`, …): its members.
pub fn of_module(name: &str) -> Option<&'static [Member]> {
    Some(match name {
        "json" => JSON,
        "math" => MATH,
        "time" => TIME,
        "os" => OS,
        "random" => RANDOM,
        "re" => RE,
        _ => return None,
    })
}

/// The names of the built-in modules.
pub const MODULES: &[&str] = &["json", "math", "time", "os", "random", "re"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_has_unique_names_and_a_description() {
        let tables = [
            "String",
            "Array",
            "Map",
            "Error",
            "Agent",
            "Model",
            "Answer",
            "Memory",
            "Action",
            "McpServer",
        ]
        .into_iter()
        .filter_map(of_type)
        .chain(MODULES.iter().filter_map(|m| of_module(m)));
        let mut count = 0;
        for table in tables {
            count += 1;
            for (i, a) in table.iter().enumerate() {
                assert!(!a.about.is_empty(), "{}", a.name);
                assert!(a.signature.starts_with(a.name), "{}", a.signature);
                assert!(
                    table.iter().skip(i + 1).all(|b| b.name != a.name),
                    "{} twice",
                    a.name
                );
            }
        }
        assert_eq!(count, 16);
    }

    #[test]
    fn params_come_from_the_signature() {
        let split = of_type("String").and_then(|t| t.iter().find(|m| m.name == "split"));
        assert_eq!(split.map(Member::params), Some(vec!["sep?"]));
        let get = of_type("Map<String, Int>").and_then(|t| t.iter().find(|m| m.name == "get"));
        assert_eq!(get.map(Member::params), Some(vec!["key", "default?"]));
        assert!(of_module("json").is_some_and(|t| t.iter().all(Member::is_method)));
        assert!(of_module("yaml").is_none());
    }
}
