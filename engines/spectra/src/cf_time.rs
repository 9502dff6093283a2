//! Decoding CF time coordinates (`<unit> since <reference date>` plus a `calendar`) to dates.
//!
//! A NetCDF time coordinate stores numbers such as `17067072` with units
//! `hours since 1-1-1 00:00:0.0` and a `calendar` attribute. [`decode`] turns one such number
//! into a [`CfDateTime`] in that calendar, and [`CfDateTime`]'s `Display` writes it as ISO
//! `YYYY-MM-DD`, adding `HH:MM` when it is not midnight and seconds when they are not zero.
//!
//! - **Units**: seconds, minutes, hours and days (also `s`, `sec`, `min`, `h`, `hr`, `d`, and
//!   milliseconds/microseconds), case-insensitive. Months and years have no fixed length, so
//!   they are refused ([`CfTimeError::AmbiguousUnit`]) rather than guessed.
//! - **Reference date**: `Y-M-D`, optionally followed by a time `h:m[:s[.fraction]]` (after a
//!   space or `T`) and a zone (`Z`, `UTC`, `GMT`, `+05:30`, `-0600`, `+05`); a zone moves the
//!   reference to UTC (`00:00 -06:00` is 06:00 UTC).
//! - **Calendars** ([`Calendar`]): `standard`/`gregorian` (Julian up to 1582-10-04, Gregorian
//!   from 1582-10-15, no year 0), `proleptic_gregorian`, `julian` (no year 0),
//!   `noleap`/`365_day`, `all_leap`/`366_day` and `360_day`; the empty string is `standard`.
//!   Calendars without a year 0 write 1 BC as year -1, as CF and cftime do.
//!
//! Times are counted in whole microseconds (the fraction of a value is rounded to them, or to
//! the coarser power of ten its floating-point precision allows), and
//! values more than [`MAX_OFFSET_DAYS`] days from the reference are refused, so no input can
//! overflow or allocate.

use std::fmt;

/// Microseconds in one day.
const MICROSECONDS_PER_DAY: i128 = 86_400_000_000;

/// The largest distance from the reference date that [`decode`] accepts, in days (about
/// 270 000 years; cftime's limit, 2^63 microseconds, is about 290 000 years).
pub const MAX_OFFSET_DAYS: f64 = 1.0e8;

/// The largest reference year accepted (either sign).
const MAX_REFERENCE_YEAR: i64 = 1_000_000;

/// Day number of Gregorian 1582-10-15 on the Gregorian scale ([`gregorian_day`], 1970-01-01 =
/// 0): where the `standard` calendar switches from Julian to Gregorian.
const GREGORIAN_START_DAY: i64 = -141_427;

/// Why a CF time could not be decoded.
#[derive(Clone, Debug, PartialEq)]
pub enum CfTimeError {
    /// The units are not of the form `<unit> since <reference date>`.
    NotATimeUnit {
        /// The units as given.
        units: String,
    },
    /// Months or years: their length depends on the calendar and the date.
    AmbiguousUnit {
        /// The unit word as given.
        unit: String,
    },
    /// A unit word that is not a unit of time.
    UnknownUnit {
        /// The unit word as given.
        unit: String,
    },
    /// The reference date cannot be read or does not exist in the calendar.
    BadReference {
        /// The reference date as given.
        reference: String,
        /// What is wrong with it.
        why: String,
    },
    /// A calendar name CF does not define (or `none`, `tai`: not decoded here).
    UnknownCalendar {
        /// The calendar as given.
        calendar: String,
    },
    /// The value is NaN or infinite.
    NotFinite {
        /// The value.
        value: f64,
    },
    /// The value lies more than [`MAX_OFFSET_DAYS`] days from the reference.
    OutOfRange {
        /// The value.
        value: f64,
        /// Its unit word as given.
        unit: String,
    },
}

impl fmt::Display for CfTimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotATimeUnit { units } => write!(
                f,
                "units `{units}` are not of the form `<unit> since <reference date>`"
            ),
            Self::AmbiguousUnit { unit } => write!(
                f,
                "`{unit}` are not a fixed length of time (months and years vary with the \
                 calendar and the date); only seconds, minutes, hours and days are decoded"
            ),
            Self::UnknownUnit { unit } => write!(
                f,
                "`{unit}` is not a unit of time; CF time units are seconds, minutes, hours or \
                 days (s, sec, min, h, hr, d)"
            ),
            Self::BadReference { reference, why } => {
                write!(f, "reference date `{reference}`: {why}")
            }
            Self::UnknownCalendar { calendar } => write!(
                f,
                "calendar `{calendar}` is not decoded; the CF calendars are standard \
                 (gregorian), proleptic_gregorian, julian, noleap (365_day), all_leap \
                 (366_day) and 360_day"
            ),
            Self::NotFinite { value } => write!(f, "time value {value} is not a finite number"),
            Self::OutOfRange { value, unit } => write!(
                f,
                "time value {value:e} {unit} lies more than {MAX_OFFSET_DAYS:e} days (about \
                 270 000 years) from the reference date"
            ),
        }
    }
}

impl std::error::Error for CfTimeError {}

/// A CF calendar (the `calendar` attribute of a time coordinate).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Calendar {
    /// `standard` or `gregorian` (the default): Julian up to 1582-10-04, Gregorian from
    /// 1582-10-15; the ten days between do not exist; no year 0.
    Standard,
    /// `proleptic_gregorian`: Gregorian rules at all dates, with a year 0.
    ProlepticGregorian,
    /// `julian`: a leap year every four years, no year 0.
    Julian,
    /// `noleap` or `365_day`: every year has 365 days.
    NoLeap,
    /// `all_leap` or `366_day`: every year has 366 days.
    AllLeap,
    /// `360_day`: twelve months of 30 days.
    Day360,
}

impl Calendar {
    /// The calendar named `name` (case-insensitive, surrounding blanks ignored); empty is
    /// [`Calendar::Standard`], CF's default.
    pub fn parse(name: &str) -> Result<Self, CfTimeError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "" | "standard" | "gregorian" => Ok(Self::Standard),
            "proleptic_gregorian" => Ok(Self::ProlepticGregorian),
            "julian" => Ok(Self::Julian),
            "noleap" | "no_leap" | "365_day" => Ok(Self::NoLeap),
            "all_leap" | "366_day" => Ok(Self::AllLeap),
            "360_day" => Ok(Self::Day360),
            _ => Err(CfTimeError::UnknownCalendar {
                calendar: name.to_owned(),
            }),
        }
    }

    /// The calendar's CF name (`standard`, `proleptic_gregorian`, `julian`, `noleap`,
    /// `all_leap` or `360_day`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Standard => "standard",
            Self::ProlepticGregorian => "proleptic_gregorian",
            Self::Julian => "julian",
            Self::NoLeap => "noleap",
            Self::AllLeap => "all_leap",
            Self::Day360 => "360_day",
        }
    }

    /// Whether years are numbered …, -1, 0, 1, … (else 1 BC is year -1 and is followed by 1).
    fn has_year_zero(self) -> bool {
        !matches!(self, Self::Standard | Self::Julian)
    }

    /// Days in `month` (1–12) of the astronomical year `year` (1 BC = 0).
    fn days_in_month(self, year: i64, month: u32) -> u32 {
        let leap = match self {
            Self::Standard if year < 1582 => julian_leap(year),
            Self::Standard | Self::ProlepticGregorian => gregorian_leap(year),
            Self::Julian => julian_leap(year),
            Self::NoLeap => false,
            Self::AllLeap => true,
            Self::Day360 => return 30,
        };
        match month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        }
    }

    /// Checks that `year-month-day` (astronomical year) is a date of this calendar.
    fn check_date(self, year: i64, month: u32, day: u32) -> Result<(), String> {
        if !(1..=12).contains(&month) {
            return Err(format!("month {month} is not 1 to 12"));
        }
        let last = self.days_in_month(year, month);
        if !(1..=last).contains(&day) {
            return Err(format!(
                "day {day} does not exist in month {month} of the {} calendar (it has {last})",
                self.name()
            ));
        }
        if self == Self::Standard && year == 1582 && month == 10 && (5..=14).contains(&day) {
            return Err(format!(
                "1582-10-{day:02} does not exist in the standard calendar (1582-10-04 is \
                 followed by 1582-10-15)"
            ));
        }
        Ok(())
    }

    /// The day number of a valid date (astronomical year) on this calendar's day scale.
    fn day_number(self, year: i64, month: u32, day: u32) -> i64 {
        match self {
            Self::Standard if (year, month, day) >= (1582, 10, 15) => {
                gregorian_day(year, month, day)
            }
            Self::Standard | Self::Julian => julian_day(year, month, day),
            Self::ProlepticGregorian => gregorian_day(year, month, day),
            Self::NoLeap | Self::AllLeap | Self::Day360 => {
                let before: i64 = (1..month)
                    .map(|m| i64::from(self.days_in_month(year, m)))
                    .sum();
                year * self.year_length() + before + i64::from(day) - 1
            }
        }
    }

    /// The date (astronomical year, month, day) of a day number from [`Calendar::day_number`].
    fn date_of(self, number: i64) -> (i64, u32, u32) {
        match self {
            Self::Standard if number >= GREGORIAN_START_DAY => gregorian_date(number),
            Self::Standard | Self::Julian => julian_date(number),
            Self::ProlepticGregorian => gregorian_date(number),
            Self::NoLeap | Self::AllLeap | Self::Day360 => {
                let length = self.year_length();
                let year = number.div_euclid(length);
                // In 0..length (at most 366), so the conversion cannot fail.
                let mut left = u32::try_from(number.rem_euclid(length)).unwrap_or(0);
                let mut month = 1;
                while month < 12 && left >= self.days_in_month(year, month) {
                    left -= self.days_in_month(year, month);
                    month += 1;
                }
                (year, month, left + 1)
            }
        }
    }

    /// Days in every year of a fixed-length calendar (365 otherwise; unused there).
    fn year_length(self) -> i64 {
        match self {
            Self::AllLeap => 366,
            Self::Day360 => 360,
            _ => 365,
        }
    }
}

impl fmt::Display for Calendar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Leap years of the Julian calendar (astronomical years: 1 BC = 0 is a leap year).
fn julian_leap(year: i64) -> bool {
    year.rem_euclid(4) == 0
}

/// Leap years of the Gregorian calendar (astronomical years).
fn gregorian_leap(year: i64) -> bool {
    year.rem_euclid(4) == 0 && (year.rem_euclid(100) != 0 || year.rem_euclid(400) == 0)
}

/// Days since the start of a year that begins on 1 March (March = month 0) to the first of
/// `month` (1–12), and the year that such a March-based year is counted in.
///
/// Counting from March puts the leap day at the end of the year, so every month before it
/// has a fixed offset: 0, 31, 61, 92, 122, 153, 184, 214, 245, 275, 306, 337.
fn march_based(year: i64, month: u32) -> (i64, i64) {
    let march_year = if month <= 2 { year - 1 } else { year };
    let from_march = i64::from((month + 9) % 12);
    (march_year, (153 * from_march + 2) / 5)
}

/// Inverse of [`march_based`]: the month (1–12) and day (1–31) of day `in_year` (0-based) of
/// the March-based year `march_year`, and the calendar year it falls in.
fn from_march_based(march_year: i64, in_year: i64) -> (i64, u32, u32) {
    let from_march = (5 * in_year + 2) / 153;
    let day = in_year - (153 * from_march + 2) / 5 + 1;
    let month = if from_march < 10 {
        from_march + 3
    } else {
        from_march - 9
    };
    let year = if month <= 2 {
        march_year + 1
    } else {
        march_year
    };
    // Month 1–12 and day 1–31 by construction.
    (
        year,
        u32::try_from(month).unwrap_or(1),
        u32::try_from(day).unwrap_or(1),
    )
}

/// Days from Gregorian 1970-01-01 to the Gregorian date `year-month-day` (astronomical year).
fn gregorian_day(year: i64, month: u32, day: u32) -> i64 {
    let (march_year, month_start) = march_based(year, month);
    // 400-year cycles of 146 097 days, starting on 1 March of a year divisible by 400.
    let cycle = march_year.div_euclid(400);
    let year_in_cycle = march_year.rem_euclid(400);
    let in_year = month_start + i64::from(day) - 1;
    let in_cycle = 365 * year_in_cycle + year_in_cycle / 4 - year_in_cycle / 100 + in_year;
    // 0000-03-01 is 719 468 days before 1970-01-01.
    146_097 * cycle + in_cycle - 719_468
}

/// Inverse of [`gregorian_day`].
fn gregorian_date(number: i64) -> (i64, u32, u32) {
    let shifted = number + 719_468;
    let cycle = shifted.div_euclid(146_097);
    let in_cycle = shifted.rem_euclid(146_097);
    // Years of 365 days, corrected for the leap days of the cycle so far.
    let year_in_cycle =
        (in_cycle - in_cycle / 1_460 + in_cycle / 36_524 - in_cycle / 146_096) / 365;
    let in_year = in_cycle - (365 * year_in_cycle + year_in_cycle / 4 - year_in_cycle / 100);
    from_march_based(400 * cycle + year_in_cycle, in_year)
}

/// Days from Gregorian 1970-01-01 (Julian 1969-12-19) to the Julian date `year-month-day`
/// (astronomical year), so that the two scales agree on every day.
fn julian_day(year: i64, month: u32, day: u32) -> i64 {
    let (march_year, month_start) = march_based(year, month);
    // 4-year cycles of 1461 days, starting on 1 March of a year divisible by 4.
    let cycle = march_year.div_euclid(4);
    let year_in_cycle = march_year.rem_euclid(4);
    let in_year = month_start + i64::from(day) - 1;
    // Julian 0000-03-01 is 719 470 days before Gregorian 1970-01-01.
    1_461 * cycle + 365 * year_in_cycle + in_year - 719_470
}

/// Inverse of [`julian_day`].
fn julian_date(number: i64) -> (i64, u32, u32) {
    let shifted = number + 719_470;
    let cycle = shifted.div_euclid(1_461);
    let in_cycle = shifted.rem_euclid(1_461);
    // The last day of a cycle (1460) is the leap day, in its fourth year.
    let year_in_cycle = (in_cycle / 365).min(3);
    let in_year = in_cycle - 365 * year_in_cycle;
    from_march_based(4 * cycle + year_in_cycle, in_year)
}

/// A unit of time that CF time coordinates may count in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// `microseconds`, `microsecond`, `usec`, `us`.
    Microseconds,
    /// `milliseconds`, `millisecond`, `msec`, `ms`.
    Milliseconds,
    /// `seconds`, `second`, `secs`, `sec`, `s`.
    Seconds,
    /// `minutes`, `minute`, `mins`, `min`.
    Minutes,
    /// `hours`, `hour`, `hrs`, `hr`, `h`.
    Hours,
    /// `days`, `day`, `d`.
    Days,
}

impl TimeUnit {
    /// The unit named `word` (case-insensitive); months and years are refused as ambiguous.
    pub fn parse(word: &str) -> Result<Self, CfTimeError> {
        match word.to_ascii_lowercase().as_str() {
            "microseconds" | "microsecond" | "usec" | "usecs" | "us" => Ok(Self::Microseconds),
            "milliseconds" | "millisecond" | "msec" | "msecs" | "ms" => Ok(Self::Milliseconds),
            "seconds" | "second" | "secs" | "sec" | "s" => Ok(Self::Seconds),
            "minutes" | "minute" | "mins" | "min" => Ok(Self::Minutes),
            "hours" | "hour" | "hrs" | "hr" | "h" => Ok(Self::Hours),
            "days" | "day" | "d" => Ok(Self::Days),
            "months" | "month" | "mons" | "mon" | "years" | "year" | "yrs" | "yr" | "a"
            | "common_years" | "common_year" => Err(CfTimeError::AmbiguousUnit {
                unit: word.to_owned(),
            }),
            _ => Err(CfTimeError::UnknownUnit {
                unit: word.to_owned(),
            }),
        }
    }

    /// The unit's length in microseconds.
    pub fn microseconds(self) -> i64 {
        match self {
            Self::Microseconds => 1,
            Self::Milliseconds => 1_000,
            Self::Seconds => 1_000_000,
            Self::Minutes => 60_000_000,
            Self::Hours => 3_600_000_000,
            Self::Days => 86_400_000_000,
        }
    }
}

/// Parsed CF time units: a unit, and a reference instant in a calendar.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeUnits {
    /// What one unit of the value is.
    pub unit: TimeUnit,
    /// The unit word as written (for messages).
    unit_word: String,
    /// The calendar the reference date (and every decoded date) is in.
    pub calendar: Calendar,
    /// The reference instant (in UTC): microseconds from day 0 of the calendar's day scale.
    reference_us: i128,
}

impl TimeUnits {
    /// Parses `units` (`<unit> since <reference date>[ <time>][ <zone>]`) in `calendar`.
    pub fn parse(units: &str, calendar: Calendar) -> Result<Self, CfTimeError> {
        let not_time = || CfTimeError::NotATimeUnit {
            units: units.to_owned(),
        };
        let text = units.trim();
        let (unit_word, rest) = text.split_once(char::is_whitespace).ok_or_else(not_time)?;
        let rest = rest.trim_start();
        let (since, reference) = rest.split_once(char::is_whitespace).ok_or_else(not_time)?;
        if !since.eq_ignore_ascii_case("since") {
            return Err(not_time());
        }
        let unit = TimeUnit::parse(unit_word)?;
        let reference_us = parse_reference(reference.trim(), calendar)?;
        Ok(Self {
            unit,
            unit_word: unit_word.to_owned(),
            calendar,
            reference_us,
        })
    }

    /// The date-time `value` units after the reference.
    pub fn decode(&self, value: f64) -> Result<CfDateTime, CfTimeError> {
        if !value.is_finite() {
            return Err(CfTimeError::NotFinite { value });
        }
        let unit_us = self.unit.microseconds();
        let unit_days = unit_us as f64 / 86_400_000_000.0;
        if value.abs() * unit_days > MAX_OFFSET_DAYS {
            return Err(CfTimeError::OutOfRange {
                value,
                unit: self.unit_word.clone(),
            });
        }
        // The whole part is exact (|value| ≤ 8.64e18 here); the fraction is rounded to whole
        // microseconds, or to the coarser power of ten that the value's own precision allows
        // (17067072.1 hours is 00:06, not 00:06:00.000005, as a 1-ulp error would show).
        let whole = value.trunc();
        let unit_us_f = unit_us as f64;
        let ulp_us = (f64::from_bits(value.abs().to_bits() + 1) - value.abs()) * unit_us_f;
        let mut step_us = 1.0;
        while step_us < ulp_us && step_us < unit_us_f {
            step_us *= 10.0;
        }
        let fraction_us = ((value - whole) * unit_us_f / step_us).round() * step_us;
        let offset_us = whole as i128 * i128::from(unit_us) + fraction_us as i128;
        let instant = self.reference_us + offset_us;
        let day = instant.div_euclid(MICROSECONDS_PER_DAY);
        let in_day = instant.rem_euclid(MICROSECONDS_PER_DAY);
        // |day| stays below about 1e9 (reference year ≤ 1e6, offset ≤ 1e8 days).
        let day = i64::try_from(day).map_err(|_| CfTimeError::OutOfRange {
            value,
            unit: self.unit_word.clone(),
        })?;
        let (year, month, day_of_month) = self.calendar.date_of(day);
        let part =
            |divisor: i128, modulus: i128| u32::try_from((in_day / divisor) % modulus).unwrap_or(0);
        Ok(CfDateTime {
            year: written_year(year, self.calendar),
            month,
            day: day_of_month,
            hour: part(3_600_000_000, 24),
            minute: part(60_000_000, 60),
            second: part(1_000_000, 60),
            microsecond: part(1, 1_000_000),
        })
    }
}

/// The year as a calendar without year 0 writes it (astronomical 0 = 1 BC = -1).
fn written_year(astronomical: i64, calendar: Calendar) -> i64 {
    if !calendar.has_year_zero() && astronomical <= 0 {
        astronomical - 1
    } else {
        astronomical
    }
}

/// A date and time of day in some calendar, as decoded by [`decode`].
///
/// `Display` writes ISO `YYYY-MM-DD` (years below 1000 zero-padded, BC years with a minus),
/// then ` HH:MM` when the time is not midnight, `:SS` when the seconds are not zero and a
/// fraction when there is one: `1948-01-01`, `2000-01-01 06:00`, `2000-02-28 23:59:59.5`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CfDateTime {
    /// Year as the calendar writes it (no year 0 in the standard and Julian calendars).
    pub year: i64,
    /// Month, 1–12.
    pub month: u32,
    /// Day of the month, 1–31 (1–30 in the 360-day calendar, where February has 30).
    pub day: u32,
    /// Hour, 0–23.
    pub hour: u32,
    /// Minute, 0–59.
    pub minute: u32,
    /// Second, 0–59.
    pub second: u32,
    /// Microsecond, 0–999 999.
    pub microsecond: u32,
}

impl fmt::Display for CfDateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.year < 0 {
            write!(f, "-{:04}", self.year.unsigned_abs())?;
        } else {
            write!(f, "{:04}", self.year)?;
        }
        write!(f, "-{:02}-{:02}", self.month, self.day)?;
        if (self.hour, self.minute, self.second, self.microsecond) == (0, 0, 0, 0) {
            return Ok(());
        }
        write!(f, " {:02}:{:02}", self.hour, self.minute)?;
        if (self.second, self.microsecond) != (0, 0) {
            write!(f, ":{:02}", self.second)?;
        }
        if self.microsecond != 0 {
            let fraction = format!("{:06}", self.microsecond);
            write!(f, ".{}", fraction.trim_end_matches('0'))?;
        }
        Ok(())
    }
}

/// Decodes `value` in CF time `units` and the `calendar` attribute (empty: `standard`).
pub fn decode(value: f64, units: &str, calendar: &str) -> Result<CfDateTime, CfTimeError> {
    let calendar = Calendar::parse(calendar)?;
    TimeUnits::parse(units, calendar)?.decode(value)
}

/// Reads the reference date-time (and zone) of CF time units: microseconds from day 0 of
/// `calendar`'s day scale, in UTC.
fn parse_reference(text: &str, calendar: Calendar) -> Result<i128, CfTimeError> {
    let bad = |why: String| CfTimeError::BadReference {
        reference: text.to_owned(),
        why,
    };
    // The date: an optional sign, then digits and dashes, up to a blank or a `T`.
    let sign_length = usize::from(text.starts_with(['-', '+']));
    let date_end = text[sign_length..]
        .find(|c: char| !(c.is_ascii_digit() || c == '-'))
        .map_or(text.len(), |at| at + sign_length);
    let (date, rest) = text.split_at(date_end);
    let rest = rest.strip_prefix(['T', 't']).unwrap_or(rest);
    let parts: Vec<&str> = date[sign_length..].split('-').collect();
    let [year, month, day] = parts.as_slice() else {
        return Err(bad(
            "expected a date year-month-day such as 1970-01-01".to_owned()
        ));
    };
    let year = number(year, 7).ok_or_else(|| bad(format!("cannot read the year `{year}`")))?;
    let year = if date.starts_with('-') { -year } else { year };
    if year.abs() > MAX_REFERENCE_YEAR {
        return Err(bad(format!("year {year} is beyond ±{MAX_REFERENCE_YEAR}")));
    }
    let month = number(month, 2).ok_or_else(|| bad(format!("cannot read the month `{month}`")))?;
    let day = number(day, 2).ok_or_else(|| bad(format!("cannot read the day `{day}`")))?;
    let astronomical = if calendar.has_year_zero() {
        year
    } else if year == 0 {
        return Err(bad(format!(
            "year 0 does not exist in the {calendar} calendar (1 BC is year -1)"
        )));
    } else if year < 0 {
        year + 1
    } else {
        year
    };
    // Both below 100 here.
    let (month, day) = (month as u32, day as u32);
    calendar.check_date(astronomical, month, day).map_err(bad)?;

    // The time of day and the zone.
    let mut tokens = rest.split_whitespace();
    let mut time_us: i128 = 0;
    let mut zone_us: i128 = 0;
    let mut next = tokens.next();
    let had_time = next.is_some_and(|t| t.contains(':'));
    if let Some(token) = next.filter(|_| had_time) {
        let (time, zone) = if let Some(time) = token.strip_suffix(['Z', 'z']) {
            (time, Some("Z"))
        } else if let Some(at) = token.find(['+', '-']) {
            (&token[..at], Some(&token[at..]))
        } else {
            (token, None)
        };
        time_us = parse_time_of_day(time).map_err(bad)?;
        if let Some(zone) = zone {
            zone_us = parse_zone(zone).map_err(bad)?;
        }
        next = tokens.next();
    } else if rest.starts_with(|c: char| !c.is_whitespace()) {
        // Something glued to the date that is not a time (such as `1970-01-01x`).
        return Err(bad(format!("cannot read `{rest}` after the date")));
    }
    if let Some(zone) = next {
        // A bare number right after the date is no zone (`1970-01-01 5`); after a time it is.
        let named_or_signed = zone.starts_with(['+', '-']) || zone.starts_with(char::is_alphabetic);
        if !had_time && !named_or_signed {
            return Err(bad(format!(
                "cannot read `{zone}` after the date (expected a time hours:minutes[:seconds])"
            )));
        }
        zone_us = parse_zone(zone).map_err(bad)?;
        next = tokens.next();
    }
    if let Some(extra) = next {
        return Err(bad(format!("unexpected `{extra}` after the date")));
    }
    let day_us = i128::from(calendar.day_number(astronomical, month, day)) * MICROSECONDS_PER_DAY;
    // Local time = UTC + zone offset.
    Ok(day_us + time_us - zone_us)
}

/// A non-negative decimal of 1 to `max_digits` ASCII digits.
fn number(text: &str, max_digits: usize) -> Option<i64> {
    if text.is_empty() || text.len() > max_digits || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// `h:m` or `h:m:s[.fraction]`: microseconds since midnight.
fn parse_time_of_day(text: &str) -> Result<i128, String> {
    let cannot = || format!("cannot read the time `{text}` (expected hours:minutes[:seconds])");
    let parts: Vec<&str> = text.split(':').collect();
    let (hour, minute, second) = match parts.as_slice() {
        [h, m] => (*h, *m, "0"),
        [h, m, s] => (*h, *m, *s),
        _ => return Err(cannot()),
    };
    let hour = number(hour, 2).ok_or_else(cannot)?;
    let minute = number(minute, 2).ok_or_else(cannot)?;
    let (whole, fraction) = second.split_once('.').unwrap_or((second, ""));
    let whole = number(whole, 2).ok_or_else(cannot)?;
    if !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return Err(cannot());
    }
    // Microseconds from the first six digits of the fraction (further digits are dropped).
    let micro = fraction
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(6)
        .fold(0_i128, |acc, b| acc * 10 + i128::from(b - b'0'));
    if hour > 23 || minute > 59 || whole > 59 {
        return Err(format!(
            "time `{text}` is not a time of day (hours 0–23, minutes and seconds 0–59)"
        ));
    }
    Ok(((i128::from(hour) * 60 + i128::from(minute)) * 60 + i128::from(whole)) * 1_000_000 + micro)
}

/// A zone: `Z`, `UTC`, `GMT`, or an offset `[+-]h`, `[+-]hh:mm`, `[+-]hhmm`: microseconds
/// east of UTC.
fn parse_zone(text: &str) -> Result<i128, String> {
    if ["z", "utc", "gmt"].contains(&text.to_ascii_lowercase().as_str()) {
        return Ok(0);
    }
    let cannot = || format!("cannot read the time zone `{text}` (expected Z, UTC or ±hh:mm)");
    let (sign, digits) = match text.as_bytes().first() {
        Some(b'-') => (-1, &text[1..]),
        Some(b'+') => (1, &text[1..]),
        _ => (1, text),
    };
    let (hours, minutes) = match digits.split_once(':') {
        Some((h, m)) => (number(h, 2), number(m, 2)),
        None if digits.len() == 4 => (
            digits.get(..2).and_then(|h| number(h, 2)),
            digits.get(2..).and_then(|m| number(m, 2)),
        ),
        None => (number(digits, 2), Some(0)),
    };
    let (Some(hours), Some(minutes)) = (hours, minutes) else {
        return Err(cannot());
    };
    if hours > 23 || minutes > 59 {
        return Err(cannot());
    }
    Ok(i128::from(sign * (hours * 60 + minutes)) * 60_000_000)
}

#[cfg(test)]
mod tests;
