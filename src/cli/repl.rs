//! `sense repl` (LANGUAGE.md §6.3): line editing and history on a terminal,
//! plain line reading otherwise; one persistent scope; errors don't end
//! the session.

use super::LANGUAGE_VERSION;
use super::output::Output;
use std::io::{BufRead, IsTerminal};

const PROMPT: &str = "sense> ";
const CONTINUATION: &str = "...    ";

enum Line {
    Text(String),
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

struct Editor {
    ed: rustyline::DefaultEditor,
    history: Option<std::path::PathBuf>,
}

impl LineSource for Editor {
    fn read(&mut self, prompt: &str) -> Line {
        match self.ed.readline(prompt) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = self.ed.add_history_entry(line.as_str());
                }
                Line::Text(line)
            }
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
        out.flush();
        eprintln!("{}", e.rendered());
    }
    out.write(&format!(
        "Sense {LANGUAGE_VERSION} \u{2014} interactive REPL ('exit' to quit)\n"
    ));
    let mut source: Box<dyn LineSource> = if std::io::stdin().is_terminal() {
        match rustyline::DefaultEditor::new() {
            Ok(mut ed) => {
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
            loop {
                out.flush();
                match source.read(CONTINUATION) {
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
        }
        buffer.push('\n');
        if let Err(e) = rt.eval_repl(&buffer) {
            out.flush();
            eprintln!("{}", e.rendered());
        }
    }
    out.flush();
    0
}
