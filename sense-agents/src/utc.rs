//! Unix times as UTC calendar text: `time.ctime()` (the memory log's
//! times) and the durable timers' due times. Both split the seconds the
//! same way, here.

/// A Unix time in UTC, split into its calendar date and time of day.
struct Utc {
    /// Days since 1970-01-01.
    days: i64,
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
}

impl Utc {
    /// `secs` seconds since the Unix epoch.
    fn of(secs: i64) -> Self {
        let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
        let (year, month, day) = civil_date(days);
        Utc {
            days,
            year,
            month,
            day,
            hour: rest / 3600,
            minute: rest % 3600 / 60,
            second: rest % 60,
        }
    }
}

/// The (year, month, day) of `days` since 1970-01-01 (Howard Hinnant's
/// days-to-civil algorithm).
fn civil_date(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// `time.ctime()` of a Unix timestamp, in UTC: `Mon Nov 30 03:44:42 2026`.
pub fn ctime(ts: f64) -> String {
    let t = Utc::of(ts.floor() as i64);
    let weekday = (t.days + 4).rem_euclid(7); // 1970-01-01 was a Thursday
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        DAYS.get(weekday as usize).unwrap_or(&"?"),
        MONTHS.get((t.month - 1) as usize).unwrap_or(&"?"),
        t.day,
        t.hour,
        t.minute,
        t.second,
        t.year
    )
}

/// Unix seconds as a UTC time, `2026-12-05 11:30:00 UTC` (whole seconds).
pub fn utc_text(unix: f64) -> String {
    let t = Utc::of(unix.floor().clamp(-1e15, 1e15) as i64);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
        t.year, t.month, t.day, t.hour, t.minute, t.second
    )
}

#[cfg(test)]
mod tests {
    use super::{ctime, utc_text};

    #[test]
    fn ctime_formats_like_python() {
        assert_eq!(ctime(0.0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(ctime(1_796_010_282.0), "Mon Nov 30 03:44:42 2026");
    }

    #[test]
    fn utc_text_writes_calendar_dates() {
        assert_eq!(utc_text(0.0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc_text(951_782_400.5), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc_text(1_764_934_200.0), "2025-12-05 11:30:00 UTC");
        assert_eq!(utc_text(-1.0), "1969-12-31 23:59:59 UTC");
    }
}
