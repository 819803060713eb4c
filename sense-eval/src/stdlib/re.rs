//! `re`: `search`, `findall`, `sub` and `split` over regular expressions with the `regex` crate (linear time: no
//! pattern can backtrack catastrophically; look-around and
//! back-references are not supported and say so).
//!
//! Compiled patterns are kept in a small most-recently-used cache, so a
//! pattern used in a loop is compiled once; each compiled program is
//! capped in size, so the cache's memory is bounded. Python's replacement
//! syntax (`\1`, `\g<1>`, `\g<name>`) is accepted by `sub`.

use super::args::{self, count, error, string};
use crate::builtins::{Arity, NativeDef, arg};
use crate::error::{EvalError, EvalResult};
use crate::value::Value;
use crate::vm::Vm;
use regex::{Regex, RegexBuilder};

const M: &str = "re";
/// Patterns kept compiled.
const CACHE_SIZE: usize = 32;
/// Largest compiled program (and lazy DFA) of one pattern, in bytes.
const SIZE_LIMIT: usize = 1 << 20;

/// The compiled-pattern cache (not part of a snapshot: it refills).
#[derive(Default)]
struct Cache {
    /// Most recently used last.
    entries: Vec<(String, Regex)>,
}

pub(super) fn install(vm: &mut Vm) {
    let natives: [(&'static str, Arity, crate::builtins::NativeFn); 4] = [
        ("search", Arity::Exact(2), search),
        ("findall", Arity::Exact(2), findall),
        ("sub", Arity::Variadic, sub),
        ("split", Arity::Variadic, split),
    ];
    for (name, arity, f) in natives {
        vm.register_module_native(M, name, NativeDef::new(name, arity, f).with_line());
    }
}

/// The compiled `pattern`, from the cache or compiled now.
pub(super) fn compiled(vm: &mut Vm, pattern: &str, f: &str) -> EvalResult<Regex> {
    if vm.ext_state_ref::<Cache>().is_none() {
        vm.set_ext_state(Cache::default());
    }
    let cache = vm.ext_state_mut::<Cache>();
    if let Some(cache) = cache {
        if let Some(at) = cache.entries.iter().position(|(p, _)| p == pattern) {
            let entry = cache.entries.remove(at);
            let re = entry.1.clone();
            cache.entries.push(entry);
            return Ok(re);
        }
        let re = RegexBuilder::new(pattern)
            .size_limit(SIZE_LIMIT)
            .dfa_size_limit(SIZE_LIMIT)
            .build()
            .map_err(|e| bad_pattern(f, pattern, &e))?;
        if cache.entries.len() >= CACHE_SIZE {
            cache.entries.remove(0);
        }
        cache.entries.push((pattern.to_string(), re.clone()));
        return Ok(re);
    }
    Err(error(f, "internal error: no pattern cache"))
}

/// A pattern that does not compile: the crate's one-line reason.
fn bad_pattern(f: &str, pattern: &str, e: &regex::Error) -> EvalError {
    let text = e.to_string();
    let reason = text
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("error: "))
        .unwrap_or_else(|| text.lines().next().unwrap_or("invalid pattern"))
        .to_string();
    error(
        f,
        format!(
            "bad pattern {}: {reason}",
            crate::numfmt::python_repr_str(pattern)
        ),
    )
}

/// `re.search(pattern, s)`: the first match as a Map `{match, start,
/// end, groups}` (offsets in characters, as Sense indexes strings;
/// `groups` holds each group's text, nil for one that took no part), or
/// nil when nothing matches.
fn search(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    const F: &str = "re.search";
    let pattern = string(vm, args, 0, F)?;
    let text = string(vm, args, 1, F)?;
    let re = compiled(vm, &pattern, F)?;
    let Some(caps) = re.captures(&text) else {
        return Ok(Value::Nil);
    };
    let Some(whole) = caps.get(0) else {
        return Ok(Value::Nil);
    };
    let chars = |byte: usize| text.get(..byte).map_or(0, |t| t.chars().count()) as i64;
    let mut groups = Vec::with_capacity(caps.len());
    for g in caps.iter().skip(1) {
        groups.push(match g {
            Some(m) => vm.new_str(m.as_str())?,
            None => Value::Nil,
        });
    }
    let entries = vec![
        ("match", vm.new_str(whole.as_str())?),
        ("start", Value::Int(chars(whole.start()))),
        ("end", Value::Int(chars(whole.end()))),
        ("groups", vm.new_array(groups)?),
    ];
    let mut m = crate::map::MapObj::new();
    for (k, v) in entries {
        m.insert(crate::map::MapKey::Str(k.into()), v);
    }
    vm.alloc_map(m)
}

/// `re.findall(pattern, s)`: every match's text; with one group, that
/// group's text; with several, an array of their texts per match
/// (a group that took no part is "").
fn findall(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    const F: &str = "re.findall";
    let pattern = string(vm, args, 0, F)?;
    let text = string(vm, args, 1, F)?;
    let re = compiled(vm, &pattern, F)?;
    let groups = re.captures_len() - 1;
    let mut out = Vec::new();
    for caps in re.captures_iter(&text) {
        vm.check_new_array(out.len() + 1)?;
        let item = match groups {
            0 => vm.new_str(caps.get(0).map_or("", |m| m.as_str()))?,
            1 => vm.new_str(caps.get(1).map_or("", |m| m.as_str()))?,
            _ => {
                let mut row = Vec::with_capacity(groups);
                for g in 1..=groups {
                    row.push(vm.new_str(caps.get(g).map_or("", |m| m.as_str()))?);
                }
                vm.new_array(row)?
            }
        };
        out.push(item);
    }
    vm.new_array(out)
}

/// Python's replacement template in the `regex` crate's syntax: `\1`,
/// `\g<1>`, `\g<name>` become `${1}`, `${name}`; `$` is literal; `\n`,
/// `\t`, `\r` and `\\` are the characters.
fn template(repl: &str) -> String {
    let mut out = String::with_capacity(repl.len());
    let mut chars = repl.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '$' => out.push_str("$$"),
            '\\' => match chars.next() {
                Some(d) if d.is_ascii_digit() => {
                    let mut n = d.to_string();
                    if let Some(e) = chars.peek().copied().filter(char::is_ascii_digit) {
                        chars.next();
                        n.push(e);
                    }
                    out.push_str(&format!("${{{n}}}"));
                }
                Some('g') if chars.peek() == Some(&'<') => {
                    chars.next();
                    let name: String = chars.by_ref().take_while(|c| *c != '>').collect();
                    out.push_str(&format!("${{{name}}}"));
                }
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('\\') => out.push('\\'),
                Some('$') => out.push_str("\\$$"),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            },
            c => out.push(c),
        }
    }
    out
}

/// Optional argument `i`: a count where 0 (or none) means "all".
fn limit(vm: &Vm, args: &[Value], i: usize, f: &str) -> EvalResult<usize> {
    if matches!(arg(args, i), Value::Nil) {
        return Ok(0);
    }
    let n = args::int(vm, args, i, f)?;
    Ok(usize::try_from(n.max(0)).unwrap_or(usize::MAX))
}

/// `re.sub(pattern, repl, s)` / `re.sub(pattern, repl, s, count)`.
fn sub(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    const F: &str = "re.sub";
    count(args, 3, 4, F)?;
    let pattern = string(vm, args, 0, F)?;
    let repl = template(&string(vm, args, 1, F)?);
    let text = string(vm, args, 2, F)?;
    let most = limit(vm, args, 3, F)?;
    let re = compiled(vm, &pattern, F)?;
    let cap = vm.config().max_string_len;
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (n, caps) in re.captures_iter(&text).enumerate() {
        if most > 0 && n >= most {
            break;
        }
        let Some(whole) = caps.get(0) else { continue };
        out.push_str(text.get(last..whole.start()).unwrap_or(""));
        caps.expand(&repl, &mut out);
        last = whole.end();
        // Check as it grows: a long replacement for many matches must not
        // build a huge string before the size cap refuses it.
        if out.len() > cap {
            break;
        }
    }
    out.push_str(text.get(last..).unwrap_or(""));
    vm.new_str(out)
}

/// `re.split(pattern, s)` / `re.split(pattern, s, maxsplit)`: the pieces
/// between matches, with the text of each group of a match between them
/// (nil for a group that took no part), as Python's `re.split` does.
fn split(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    const F: &str = "re.split";
    count(args, 2, 3, F)?;
    let pattern = string(vm, args, 0, F)?;
    let text = string(vm, args, 1, F)?;
    let most = limit(vm, args, 2, F)?;
    let re = compiled(vm, &pattern, F)?;
    let mut out = Vec::new();
    let mut last = 0;
    for (n, caps) in re.captures_iter(&text).enumerate() {
        if most > 0 && n >= most {
            break;
        }
        let Some(whole) = caps.get(0) else { continue };
        vm.check_new_array(out.len() + caps.len())?;
        out.push(vm.new_str(text.get(last..whole.start()).unwrap_or(""))?);
        for g in caps.iter().skip(1) {
            out.push(match g {
                Some(m) => vm.new_str(m.as_str())?,
                None => Value::Nil,
            });
        }
        last = whole.end();
    }
    vm.check_new_array(out.len() + 1)?;
    out.push(vm.new_str(text.get(last..).unwrap_or(""))?);
    vm.new_array(out)
}
