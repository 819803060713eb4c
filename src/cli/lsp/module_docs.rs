//! Members of the standard library's built-in modules (`json`, `math`,
//! `time`, `os`, `random`, `re`) with their signatures, for completion
//! after `json.` when no `json.sns` answers the import.

/// `(module, member, signature)` for every member.
pub const MODULE_DOCS: &[(&str, &str, &str)] = &[
    (
        "json",
        "loads",
        "json.loads(text: String) -> Map | Array | String | Int | Float | Bool | nil",
    ),
    ("json", "dumps", "json.dumps(value, indent: Int?) -> String"),
    ("math", "pi", "math.pi: Float"),
    ("math", "e", "math.e: Float"),
    ("math", "inf", "math.inf: Float"),
    ("math", "nan", "math.nan: Float"),
    ("math", "floor", "math.floor(x) -> Int"),
    ("math", "ceil", "math.ceil(x) -> Int"),
    ("math", "sqrt", "math.sqrt(x) -> Float"),
    ("math", "pow", "math.pow(x, y) -> Float"),
    ("math", "log", "math.log(x, base?) -> Float"),
    ("math", "exp", "math.exp(x) -> Float"),
    ("math", "sin", "math.sin(x) -> Float"),
    ("math", "cos", "math.cos(x) -> Float"),
    ("math", "abs", "math.abs(x) -> Int | Float"),
    ("math", "min", "math.min(a, b, …) / math.min(array)"),
    ("math", "max", "math.max(a, b, …) / math.max(array)"),
    ("math", "sum", "math.sum(array, start?) -> Int | Float"),
    ("math", "round", "math.round(x) -> Int / math.round(x, n)"),
    ("time", "now", "time.now() -> Float (Unix seconds)"),
    ("time", "monotonic", "time.monotonic() -> Float"),
    (
        "time",
        "sleep",
        "time.sleep(seconds) (a durable timer inside an agent)",
    ),
    (
        "os",
        "getenv",
        "os.getenv(name: String, default?) -> String | default (capability env.read)",
    ),
    ("random", "random", "random.random() -> Float in [0, 1)"),
    ("random", "randint", "random.randint(a: Int, b: Int) -> Int"),
    ("random", "choice", "random.choice(xs: Array)"),
    ("random", "seed", "random.seed(n: Int)"),
    (
        "re",
        "search",
        "re.search(pattern, s) -> Map {match, start, end, groups} | nil",
    ),
    ("re", "findall", "re.findall(pattern, s) -> Array"),
    ("re", "sub", "re.sub(pattern, repl, s, count?) -> String"),
    ("re", "split", "re.split(pattern, s, maxsplit?) -> Array"),
];

/// The name of the built-in module an import would bind when no file
/// answers it: `import json` (module `json.sns`) or `import python
/// "json"` (which records no module file; its name is in the detail).
pub fn builtin_name(import: &crate::cli::decls::Decl) -> Option<&str> {
    let name = match import.module.as_deref() {
        Some(rel) => rel.strip_suffix(".sns")?,
        None => import
            .detail
            .strip_prefix("import python \"")?
            .strip_suffix('"')?,
    };
    members(name).next().map(|_| name)
}

/// The signature of member `member` of built-in module `module`.
pub fn signature(module: &str, member: &str) -> Option<&'static str> {
    members(module)
        .find(|(n, _)| *n == member)
        .map(|(_, sig)| sig)
}

/// The members of built-in module `module` with their signatures; empty
/// for any other name.
pub fn members(module: &str) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
    MODULE_DOCS
        .iter()
        .filter(move |(m, _, _)| *m == module)
        .map(|(_, name, sig)| (*name, *sig))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_module_of_the_runtime_has_members_here() {
        for name in sense::eval::stdlib::MODULE_NAMES {
            assert!(super::members(name).next().is_some(), "{name}");
        }
    }
}
