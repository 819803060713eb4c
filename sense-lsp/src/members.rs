//! What may follow a `.`: the methods and fields of the language's own
//! values (strings, arrays, maps, errors, agents, models, …) and the
//! functions of the built-in modules (`json`, `math`, `time`, `os`,
//! `random`, `re`), each with its signature and one line about it — for
//! completion after `.`, hover and signature help.

/// One member: its signature as a reader writes the call (its name is the
/// signature up to any `(`), and what it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    /// How it is called (`split(sep?)`) or read (`status`).
    pub signature: &'static str,
    /// One line about it.
    pub about: &'static str,
}

impl Member {
    /// The name after the dot: the signature up to any `(`.
    pub fn name(&self) -> &'static str {
        let signature = self.signature;
        signature
            .split_once('(')
            .map_or(signature, |(name, _)| name)
    }

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

/// Declares the tables of members, `NAME = [ "signature" => "about", … ];`
/// each (a private `const NAME: &[Member]`).
macro_rules! member_tables {
    ($($table:ident = [$($signature:literal => $about:literal,)*];)*) => {
        $(const $table: &[Member] = &[$(m($signature, $about),)*];)*
    };
}

/// A member from its signature and the line about it.
const fn m(signature: &'static str, about: &'static str) -> Member {
    Member { signature, about }
}

member_tables! {
    STRING = [
        "split(sep?)" => "the parts between each `sep` (by default runs of whitespace)",
        "strip()" => "without leading and trailing whitespace",
        "lstrip()" => "without leading whitespace",
        "rstrip()" => "without trailing whitespace",
        "lower()" => "in lower case",
        "upper()" => "in upper case",
        "replace(old, new)" => "every `old` replaced by `new`",
        "starts_with(prefix)" => "whether it begins with `prefix`",
        "ends_with(suffix)" => "whether it ends with `suffix`",
        "find(sub)" => "the index of the first `sub`, or -1",
        "count(sub)" => "how many times `sub` occurs (not overlapping)",
        "slice(start, end?)" =>
            "the code points from `start` up to `end` (negative counts from the end)",
        "join(items)" => "the items shown as `str()` shows them, with this string between them",
        "lines()" => "the lines, without their line ends",
    ];
    ARRAY = [
        "push(value)" => "appends `value` in place; returns the array",
        "pop(index?)" => "removes and returns the last element (or the one at `index`)",
        "insert(index, value)" => "inserts `value` before `index`, in place",
        "remove(value)" => "removes the first element equal to `value`, in place",
        "index(value)" => "the index of the first element equal to `value`, or -1",
        "contains(value)" => "whether an element equals `value`",
        "slice(start, end?)" => "a new array of the elements from `start` up to `end`",
        "reverse()" => "reverses the array in place",
        "sort(key?)" => "sorts in place, stably (by `key(element)` when given)",
        "sorted()" => "a sorted copy",
        "map(f)" => "a new array of `f(element)`",
        "filter(f)" => "a new array of the elements for which `f(element)` is truthy",
        "reduce(f, init)" => "folds the elements with `f(accumulated, element)` from `init`",
        "copy()" => "a shallow copy",
    ];
    MAP = [
        "keys()" => "the keys, in insertion order",
        "values()" => "the values, in insertion order",
        "items()" => "an array of `[key, value]` pairs",
        "get(key, default?)" => "the value of `key`, or `default` (nil) when absent",
        "has(key)" => "whether `key` is present",
        "pop(key, default?)" => "removes `key` and returns its value (or `default`)",
        "copy()" => "a shallow copy",
    ];
    ERROR = [
        "class" => "the error's class, e.g. \"SenseRuntimeError\"",
        "message" => "the error's message",
        "line" => "the line it was raised at, or nil",
    ];
    AGENT = [
        "status" => "\"idle\", \"running\", \"paused\", \"completed\" or \"failed\"",
        "name" => "the agent's name",
        "pause_reason" => "what the agent paused with, while it is paused",
        "doc" => "the agent's doc string",
    ];
    MODEL = [
        "name" => "the model's name",
        "ask(prompt)" => "asks the model; returns its answer",
    ];
    ANSWER = [
        "value" => "the answer's value",
        "confidence" => "the model's confidence, or nil",
        "source" => "which model answered",
    ];
    MEMORY = [
        "remember(key, value)" => "stores `value` under `key`",
        "recall(key)" => "the value stored under `key`, or nil",
        "forget(key)" => "removes `key`",
        "keys()" => "the keys stored",
        "history(key)" => "every value `key` has held (persistent memory)",
        "as_of(key, time)" => "the value `key` held at `time` (persistent memory)",
    ];
    ACTION = [
        "verify()" => "runs the action's checks",
        "approve()" => "approves the action",
        "commit()" => "commits the action",
        "rollback()" => "rolls a committed action back",
        "state" => "the action's state",
        "name" => "the action's name",
        "kind" => "\"reversible\" or \"irreversible\"",
        "approved" => "whether it was approved",
    ];
    MCP_SERVER = [
        "name" => "the server's name",
        "tools" => "the server's tools",
        "close()" => "ends the server's process",
    ];
    JSON = [
        "loads(text)" => "the value a JSON text holds (objects become Maps)",
        "dumps(value, indent?)" => "the JSON text of a value (keys in insertion order)",
    ];
    MATH = [
        "pi" => "π",
        "e" => "Euler's number",
        "inf" => "positive infinity",
        "nan" => "not a number",
        "floor(x)" => "the largest Int not above `x`",
        "ceil(x)" => "the smallest Int not below `x`",
        "sqrt(x)" => "the square root",
        "pow(x, y)" => "`x` to the power `y`",
        "log(x, base?)" => "the logarithm (natural by default)",
        "exp(x)" => "e to the power `x`",
        "sin(x)" => "the sine (radians)",
        "cos(x)" => "the cosine (radians)",
        "abs(x)" => "the absolute value",
        "min(items)" => "the smallest element",
        "max(items)" => "the largest element",
        "sum(items)" => "the sum of the elements",
        "round(x, ndigits?)" => "rounded half to even, as Python rounds",
    ];
    TIME = [
        "now()" => "Unix time in seconds (Float)",
        "monotonic()" => "seconds on a clock that never goes back",
        "sleep(seconds)" => "waits; inside an agent, a durable timer (pause kind \"timer\")",
    ];
    OS = [
        "getenv(name, default?)" => "an environment variable (capability `env.read`)",
    ];
    RANDOM = [
        "random()" => "a Float in [0, 1)",
        "randint(a, b)" => "an Int in [a, b]",
        "choice(items)" => "one element of an array",
        "seed(n)" => "restarts the generator's sequence from `n`",
    ];
    RE = [
        "search(pattern, text)" => "the first match as a Map {match, start, end, groups}, or nil",
        "findall(pattern, text)" => "every match (or its groups)",
        "sub(pattern, replacement, text)" => "the text with every match replaced",
        "split(pattern, text)" => "the parts between matches",
    ];
}

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
                assert!(!a.about.is_empty(), "{}", a.name());
                let name = a.name();
                let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
                assert!(
                    !name.is_empty() && name.chars().all(word),
                    "{}",
                    a.signature
                );
                assert!(
                    table.iter().skip(i + 1).all(|b| b.name() != a.name()),
                    "{} twice",
                    a.name()
                );
            }
        }
        assert_eq!(count, 16);
    }

    #[test]
    fn params_come_from_the_signature() {
        let split = of_type("String").and_then(|t| t.iter().find(|m| m.name() == "split"));
        assert_eq!(split.map(Member::params), Some(vec!["sep?"]));
        let get = of_type("Map<String, Int>").and_then(|t| t.iter().find(|m| m.name() == "get"));
        assert_eq!(get.map(Member::params), Some(vec!["key", "default?"]));
        assert!(of_module("json").is_some_and(|t| t.iter().all(Member::is_method)));
        assert!(of_module("yaml").is_none());
    }
}
