//! `sense serve`: its arguments, and the wiring to [`sense_server::serve`].

use super::LimitArgs;
use clap::Args;
use sense_server::serve::{ServeOptions, Service, TOKEN_VAR};
use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;

/// `sense serve` arguments.
#[derive(Args)]
pub struct ServeArgs {
    /// The program whose agents are served (read once, at startup)
    file: PathBuf,
    /// Where instances live: sqlite:PATH or postgres://user@host:port/db
    /// [default: sqlite:FILE.db beside the program]
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// The port to listen on; 0 picks a free one
    #[arg(long, value_name = "N", default_value_t = 4400)]
    port: u16,
    /// The address to listen on; anything but loopback requires a token
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    listen: IpAddr,
    /// Require `Authorization: Bearer TOKEN` on the API [default: $SENSE_SERVE_TOKEN]
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
    /// Requests handled at once (1 to 1024)
    #[arg(long, value_name = "N", default_value_t = 16,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1024))]
    workers: usize,
    /// Seconds a claim on a step lasts unless renewed (0.1 to 3600): a
    /// step whose process died is taken over after at most this long
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0,
          value_parser = parse_lease)]
    lease: f64,
    /// Versions of each instance kept in its history, the current one
    /// included [default: all]
    #[arg(long, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<u32>::new().range(1..=u64::from(u32::MAX)))]
    keep_versions: Option<u32>,
    /// Runtimes of recently answered instances kept in memory, so that
    /// the next answer skips restoring the snapshot (0 keeps none)
    #[arg(long, value_name = "N", default_value_t = sense_server::serve::DEFAULT_HOT_INSTANCES,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=1_000_000))]
    hot_instances: usize,
    #[command(flatten)]
    limits: LimitArgs,
}

/// `sense serve FILE [--store URL] [--port N] [--listen ADDR] [--token T]`.
pub fn serve(args: ServeArgs) -> i32 {
    let options = ServeOptions {
        file: args.file,
        store: args.store,
        port: args.port,
        listen: args.listen,
        token: args.token.or_else(|| std::env::var(TOKEN_VAR).ok()),
        workers: args.workers,
        config: args.limits.config(),
        lease: std::time::Duration::from_secs_f64(args.lease),
        keep_versions: args.keep_versions,
        hot_instances: args.hot_instances,
    };
    let service = match Service::bind(options) {
        Ok(s) => s,
        Err(e) => return super::fail(&e),
    };
    println!("{}", service.banner());
    let _ = std::io::stdout().flush();
    match service.run() {
        Ok(()) => 0,
        Err(e) => super::fail(&e),
    }
}

/// `--lease`: a number of seconds from 0.1 to 3600.
fn parse_lease(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.1..=3600.0).contains(&s) => Ok(s),
        _ => Err(format!(
            "{text} is not a number of seconds from 0.1 to 3600"
        )),
    }
}
