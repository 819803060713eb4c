//! `sense repl` (docs/book/src/cli.md § The REPL): line editing and history on a terminal,
//! plain line reading otherwise; one persistent scope; errors don't end
//! the session.
//!
//! On a terminal the REPL also helps a person typing: the value of an
//! input that ends with an expression (not an assignment) is shown, as
//! Python's and Lua's REPLs do (`1 + 2` shows `3`; nil shows nothing), and
//! Tab completes keywords, builtins and the names the session has defined.
//! When stdin is not a terminal (a pipe or a file), nothing is echoed:
//! piped sessions print exactly what the reference prints, which the
//! golden REPL cases check byte for byte.
//!
//! Ctrl-C, as in Python's, Lua's and node's REPLs, never ends the session:
//! on a line being typed (or a block) it drops what was typed; while a
//! statement runs it stops it at its next safe point
//! (`SenseRuntimeError: interrupted`) and the prompt comes back with every
//! name the session had defined.

use super::LANGUAGE_VERSION;
use super::output::Output;
use std::cell::RefCell;
use std::io::{BufRead, IsTerminal};
use std::rc::Rc;

const PROMPT: &str = "sense> ";
const CONTINUATION: &str = "...    ";

enum Line {
    Text(String),
    /// Ctrl-C while typing: drop the line (and an open block).
    Cancelled,
    End,
}

trait LineSource {
    fn read(&mut self, prompt: &str) -> Line;
}

struct Plain {
    out: Output,
}

impl LineSource for Plain {
    fn read(&mut self, prompt: &str) -> Line {
        self.out.write(prompt);
        self.out.flush();
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => Line::End,
            Ok(_) => {
                let trimmed = line.strip_suffix('\n').unwrap_or(&line);
                Line::Text(trimmed.strip_suffix('\r').unwrap_or(trimmed).to_string())
            }
        }
    }
}

type Rustyline = rustyline::Editor<Completion, rustyline::history::DefaultHistory>;

struct Editor {
    ed: Rustyline,
    history: Option<std::path::PathBuf>,
}

/// Tab completion: keywords, builtins and the session's names (refreshed
/// after every input).
struct Completion {
    names: Rc<RefCell<Vec<String>>>,
}

impl rustyline::completion::Completer for Completion {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &rustyline::Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let before = line.get(..pos).unwrap_or(line);
        if before.trim().is_empty() {
            // Tab at the start of a line indents, as in a block.
            return Ok((pos, vec!["    ".to_string()]));
        }
        let start = before
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let word = &before[start..];
        // After a `.` the candidates would be members, which depend on the value.
        if word.is_empty() || before[..start].ends_with('.') {
            return Ok((pos, Vec::new()));
        }
        Ok((start, completions(word, &self.names.borrow())))
    }
}

/// Keywords, builtins and `names` starting with `word`, sorted, once each.
fn completions(word: &str, names: &[String]) -> Vec<String> {
    let mut found: Vec<String> = sense_lsp::names::keywords()
        .into_iter()
        .map(str::to_string)
        .chain(sense_lsp::names::builtins())
        .chain(names.iter().cloned())
        .filter(|c| c.starts_with(word))
        .collect();
    found.sort();
    found.dedup();
    found
}

impl rustyline::hint::Hinter for Completion {
    type Hint = String;
}
impl rustyline::highlight::Highlighter for Completion {}
impl rustyline::validate::Validator for Completion {}
impl rustyline::Helper for Completion {}

impl LineSource for Editor {
    fn read(&mut self, prompt: &str) -> Line {
        match self.ed.readline(prompt) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = self.ed.add_history_entry(line.as_str());
                }
                Line::Text(line)
            }
            Err(rustyline::error::ReadlineError::Interrupted) => Line::Cancelled,
            Err(_) => Line::End,
        }
    }
}

impl Drop for Editor {
    fn drop(&mut self) {
        if let Some(h) = &self.history {
            let _ = self.ed.save_history(h);
        }
    }
}

/// Runs the REPL, after running `preload`'s top level if given; returns
/// the exit status.
pub fn repl(preload: Option<&std::path::Path>) -> i32 {
    let out = Output::stdout();
    let mut rt = sense::Runtime::new();
    out.install(&mut rt);
    sense_providers::register_defaults(&mut rt);
    if let Some(path) = preload
        && let Err(e) = rt.run_file(path)
    {
        super::output::report_error(&out, &rt, &e, None);
    }
    out.write(&format!(
        "Sense {LANGUAGE_VERSION} \u{2014} interactive REPL ('exit' to quit)\n"
    ));
    let names = Rc::new(RefCell::new(rt.visible_names()));
    let interactive = std::io::stdin().is_terminal();
    let running = Running::install(rt.cancel_handle(), interactive);
    let mut source: Box<dyn LineSource> = if interactive {
        // Tab completes the common prefix, a second Tab lists the choices.
        let config = rustyline::Config::builder()
            .completion_type(rustyline::CompletionType::List)
            .build();
        match Rustyline::with_config(config) {
            Ok(mut ed) => {
                ed.set_helper(Some(Completion {
                    names: names.clone(),
                }));
                let history = std::env::var_os("HOME")
                    .map(|h| std::path::PathBuf::from(h).join(".sense_history"));
                if let Some(h) = &history {
                    let _ = ed.load_history(h);
                }
                out.flush();
                Box::new(Editor { ed, history })
            }
            Err(_) => Box::new(Plain { out: out.clone() }),
        }
    } else {
        Box::new(Plain { out: out.clone() })
    };
    loop {
        out.flush();
        let line = match source.read(PROMPT) {
            Line::Text(l) => l,
            Line::Cancelled => continue,
            Line::End => {
                out.write("\n");
                break;
            }
        };
        let trimmed = line.trim();
        if trimmed == "exit" || trimmed == "quit" {
            break;
        }
        if trimmed.is_empty() {
            continue;
        }
        let mut buffer = line.clone();
        if line.trim_end().ends_with(':') {
            // Block mode: collect until a blank line.
            let mut cancelled = false;
            loop {
                out.flush();
                match source.read(CONTINUATION) {
                    Line::Cancelled => {
                        cancelled = true;
                        break;
                    }
                    Line::Text(l) if l.trim().is_empty() => break,
                    Line::Text(l) => {
                        buffer.push('\n');
                        buffer.push_str(&l);
                    }
                    // Like the reference, end of input inside a block
                    // ends the session without running the open block.
                    Line::End => {
                        out.write("\n");
                        out.flush();
                        return 0;
                    }
                }
            }
            if cancelled {
                continue;
            }
        }
        buffer.push('\n');
        running.start();
        let result = if interactive {
            rt.eval_repl_echo(&buffer).map(|shown| {
                if let Some(text) = shown {
                    out.write(&text);
                    out.write("\n");
                }
            })
        } else {
            rt.eval_repl(&buffer)
        };
        running.stop();
        if let Err(e) = result {
            super::output::report_error(&out, &rt, &e, Some(&buffer));
        }
        if interactive {
            *names.borrow_mut() = rt.visible_names();
        }
    }
    out.flush();
    0
}

/// Whether a statement is running, for the Ctrl-C handler: then Ctrl-C
/// stops it; otherwise (the terminal is in raw mode while a line is read,
/// so this is rare) it is ignored.
struct Running {
    flag: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    cancel: sense::agents::CancelHandle,
}

impl Running {
    /// Installs the process's Ctrl-C handler (on a terminal only: a piped
    /// session keeps the default, so Ctrl-C ends it as it ends any filter).
    fn install(cancel: sense::agents::CancelHandle, interactive: bool) -> Running {
        use std::sync::atomic::{AtomicBool, Ordering};
        let flag = std::sync::Arc::new(AtomicBool::new(false));
        let on_signal = (flag.clone(), cancel.clone());
        let installed = interactive
            && ctrlc::set_handler(move || {
                if on_signal.0.load(Ordering::Acquire) {
                    on_signal.1.cancel();
                }
            })
            .is_ok();
        Running {
            flag: installed.then_some(flag),
            cancel,
        }
    }

    fn start(&self) {
        if let Some(f) = &self.flag {
            f.store(true, std::sync::atomic::Ordering::Release);
        }
    }

    /// The statement ended: a Ctrl-C that came too late to stop it must
    /// not stop the next one.
    fn stop(&self) {
        if let Some(f) = &self.flag {
            f.store(false, std::sync::atomic::Ordering::Release);
        }
        self.cancel.withdraw();
    }
}

#[cfg(test)]
mod tests {
    use super::completions;

    #[test]
    fn completes_keywords_builtins_and_names() {
        let names = vec!["printer_count".to_string(), "agent_x".to_string()];
        assert_eq!(completions("pri", &names), ["print", "printer_count"]);
        assert_eq!(completions("ag", &names), ["agent", "agent_x"]);
        assert!(completions("zz", &names).is_empty());
    }
}
