use super::*;

/// Decodes and unpacks to (year, month, day, hour, minute, second, microsecond).
fn parts(value: f64, units: &str, calendar: &str) -> (i64, u32, u32, u32, u32, u32, u32) {
    let d = decode(value, units, calendar)
        .unwrap_or_else(|error| panic!("{value} {units} ({calendar}): {error}"));
    (
        d.year,
        d.month,
        d.day,
        d.hour,
        d.minute,
        d.second,
        d.microsecond,
    )
}

fn label(value: f64, units: &str, calendar: &str) -> String {
    decode(value, units, calendar)
        .unwrap_or_else(|error| panic!("{value} {units} ({calendar}): {error}"))
        .to_string()
}

#[test]
fn known_answers_from_the_issue() {
    assert_eq!(label(0.0, "days since 1970-01-01", ""), "1970-01-01");
    assert_eq!(
        label(0.0, "days since 1970-01-01 00:00:0.0", "gregorian"),
        "1970-01-01"
    );
    // NCEP/NCAR reanalysis time axis.
    assert_eq!(
        label(17_067_072.0, "hours since 1-1-1 00:00:0.0", "standard"),
        "1948-01-01"
    );
    assert_eq!(
        label(360.0, "days since 2000-01-01", "360_day"),
        "2001-01-01"
    );
    assert_eq!(label(59.0, "days since 2001-01-01", "noleap"), "2001-03-01");
    assert_eq!(
        label(365.0, "days since 2000-01-01", "noleap"),
        "2001-01-01"
    );
    assert_eq!(
        label(365.0, "days since 2000-01-01", "365_day"),
        "2001-01-01"
    );
}

/// Reference values from Python cftime, over every calendar: dates around the 1582 switch,
/// leap days, years before 1 AD, fractions of a day, time zones and unit abbreviations.
#[test]
fn decoded_dates_match_cftime_in_every_calendar() {
    // Each row is (value, units, calendar, (year, month, day, hour, minute, second, microsecond))
    // as printed by Python cftime 1.6.6.1 (pip install cftime) for
    //     d = cftime.num2date(value, units, calendar=calendar)
    //     (d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond)
    // over the six calendars; years are cftime's (1 BC is -1 in standard and julian, 0 in
    // the others, which have a year 0).
    #[rustfmt::skip]
    #[allow(clippy::type_complexity)]
    let rows: &[(f64, &str, &str, (i64, u32, u32, u32, u32, u32, u32))] = &[
        (17067072.0, "hours since 1-1-1 00:00:0.0", "standard", (1948, 1, 1, 0, 0, 0, 0)),
        (0.0, "days since 1970-01-01 00:00:0.0", "standard", (1970, 1, 1, 0, 0, 0, 0)),
        (59.0, "days since 2000-01-01", "standard", (2000, 2, 29, 0, 0, 0, 0)),
        (365.0, "days since 2000-01-01", "standard", (2000, 12, 31, 0, 0, 0, 0)),
        (360.0, "days since 2000-01-01", "standard", (2000, 12, 26, 0, 0, 0, 0)),
        (-1.0, "days since 1582-10-15", "standard", (1582, 10, 4, 0, 0, 0, 0)),
        (1.0, "days since 1582-10-04", "standard", (1582, 10, 15, 0, 0, 0, 0)),
        (10.5, "days since 1582-10-04 00:00", "standard", (1582, 10, 24, 12, 0, 0, 0)),
        (59.0, "days since 1900-01-01", "standard", (1900, 3, 1, 0, 0, 0, 0)),
        (1460.0, "days since 1-1-1", "standard", (4, 12, 31, 0, 0, 0, 0)),
        (-366.0, "days since 1-1-1", "standard", (-1, 1, 1, 0, 0, 0, 0)),
        (-1.0, "days since -1-03-01", "standard", (-1, 2, 29, 0, 0, 0, 0)),
        (730000.25, "days since 1-1-1", "standard", (1999, 9, 2, 6, 0, 0, 0)),
        (1000000.0, "minutes since 1800-01-01 00:00:00", "standard", (1801, 11, 26, 10, 40, 0, 0)),
        (86399.5, "seconds since 2000-02-28T00:00:00Z", "standard", (2000, 2, 28, 23, 59, 59, 500000)),
        (-30.0, "hours since 2000-03-01 06:00:00", "standard", (2000, 2, 29, 0, 0, 0, 0)),
        (0.0, "hours since 2000-01-01 06:00:00 -06:00", "standard", (2000, 1, 1, 12, 0, 0, 0)),
        (0.0, "hours since 2000-01-01T06:00:00+05:30", "standard", (2000, 1, 1, 0, 30, 0, 0)),
        (7.25, "min since 2000-01-01", "standard", (2000, 1, 1, 0, 7, 15, 0)),
        (36.0, "h since 2004-02-28", "standard", (2004, 2, 29, 12, 0, 0, 0)),
        (-10000000.0, "d since 2000-01-01", "standard", (-25380, 6, 16, 0, 0, 0, 0)),
        (17067072.0, "hours since 1-1-1 00:00:0.0", "proleptic_gregorian", (1948, 1, 3, 0, 0, 0, 0)),
        (0.0, "days since 1970-01-01 00:00:0.0", "proleptic_gregorian", (1970, 1, 1, 0, 0, 0, 0)),
        (59.0, "days since 2000-01-01", "proleptic_gregorian", (2000, 2, 29, 0, 0, 0, 0)),
        (365.0, "days since 2000-01-01", "proleptic_gregorian", (2000, 12, 31, 0, 0, 0, 0)),
        (360.0, "days since 2000-01-01", "proleptic_gregorian", (2000, 12, 26, 0, 0, 0, 0)),
        (-1.0, "days since 1582-10-15", "proleptic_gregorian", (1582, 10, 14, 0, 0, 0, 0)),
        (1.0, "days since 1582-10-04", "proleptic_gregorian", (1582, 10, 5, 0, 0, 0, 0)),
        (10.5, "days since 1582-10-04 00:00", "proleptic_gregorian", (1582, 10, 14, 12, 0, 0, 0)),
        (59.0, "days since 1900-01-01", "proleptic_gregorian", (1900, 3, 1, 0, 0, 0, 0)),
        (1460.0, "days since 1-1-1", "proleptic_gregorian", (4, 12, 31, 0, 0, 0, 0)),
        (-366.0, "days since 1-1-1", "proleptic_gregorian", (0, 1, 1, 0, 0, 0, 0)),
        (-1.0, "days since -1-03-01", "proleptic_gregorian", (-1, 2, 28, 0, 0, 0, 0)),
        (730000.25, "days since 1-1-1", "proleptic_gregorian", (1999, 9, 4, 6, 0, 0, 0)),
        (1000000.0, "minutes since 1800-01-01 00:00:00", "proleptic_gregorian", (1801, 11, 26, 10, 40, 0, 0)),
        (86399.5, "seconds since 2000-02-28T00:00:00Z", "proleptic_gregorian", (2000, 2, 28, 23, 59, 59, 500000)),
        (-30.0, "hours since 2000-03-01 06:00:00", "proleptic_gregorian", (2000, 2, 29, 0, 0, 0, 0)),
        (0.0, "hours since 2000-01-01 06:00:00 -06:00", "proleptic_gregorian", (2000, 1, 1, 12, 0, 0, 0)),
        (0.0, "hours since 2000-01-01T06:00:00+05:30", "proleptic_gregorian", (2000, 1, 1, 0, 30, 0, 0)),
        (7.25, "min since 2000-01-01", "proleptic_gregorian", (2000, 1, 1, 0, 7, 15, 0)),
        (36.0, "h since 2004-02-28", "proleptic_gregorian", (2004, 2, 29, 12, 0, 0, 0)),
        (-10000000.0, "d since 2000-01-01", "proleptic_gregorian", (-25380, 12, 6, 0, 0, 0, 0)),
        (17067072.0, "hours since 1-1-1 00:00:0.0", "julian", (1947, 12, 19, 0, 0, 0, 0)),
        (0.0, "days since 1970-01-01 00:00:0.0", "julian", (1970, 1, 1, 0, 0, 0, 0)),
        (59.0, "days since 2000-01-01", "julian", (2000, 2, 29, 0, 0, 0, 0)),
        (365.0, "days since 2000-01-01", "julian", (2000, 12, 31, 0, 0, 0, 0)),
        (360.0, "days since 2000-01-01", "julian", (2000, 12, 26, 0, 0, 0, 0)),
        (-1.0, "days since 1582-10-15", "julian", (1582, 10, 14, 0, 0, 0, 0)),
        (1.0, "days since 1582-10-04", "julian", (1582, 10, 5, 0, 0, 0, 0)),
        (10.5, "days since 1582-10-04 00:00", "julian", (1582, 10, 14, 12, 0, 0, 0)),
        (59.0, "days since 1900-01-01", "julian", (1900, 2, 29, 0, 0, 0, 0)),
        (1460.0, "days since 1-1-1", "julian", (4, 12, 31, 0, 0, 0, 0)),
        (-366.0, "days since 1-1-1", "julian", (-1, 1, 1, 0, 0, 0, 0)),
        (-1.0, "days since -1-03-01", "julian", (-1, 2, 29, 0, 0, 0, 0)),
        (730000.25, "days since 1-1-1", "julian", (1999, 8, 20, 6, 0, 0, 0)),
        (1000000.0, "minutes since 1800-01-01 00:00:00", "julian", (1801, 11, 25, 10, 40, 0, 0)),
        (86399.5, "seconds since 2000-02-28T00:00:00Z", "julian", (2000, 2, 28, 23, 59, 59, 500000)),
        (-30.0, "hours since 2000-03-01 06:00:00", "julian", (2000, 2, 29, 0, 0, 0, 0)),
        (0.0, "hours since 2000-01-01 06:00:00 -06:00", "julian", (2000, 1, 1, 12, 0, 0, 0)),
        (0.0, "hours since 2000-01-01T06:00:00+05:30", "julian", (2000, 1, 1, 0, 30, 0, 0)),
        (7.25, "min since 2000-01-01", "julian", (2000, 1, 1, 0, 7, 15, 0)),
        (36.0, "h since 2004-02-28", "julian", (2004, 2, 29, 12, 0, 0, 0)),
        (-10000000.0, "d since 2000-01-01", "julian", (-25380, 6, 29, 0, 0, 0, 0)),
        (17067072.0, "hours since 1-1-1 00:00:0.0", "noleap", (1949, 4, 19, 0, 0, 0, 0)),
        (0.0, "days since 1970-01-01 00:00:0.0", "noleap", (1970, 1, 1, 0, 0, 0, 0)),
        (59.0, "days since 2000-01-01", "noleap", (2000, 3, 1, 0, 0, 0, 0)),
        (365.0, "days since 2000-01-01", "noleap", (2001, 1, 1, 0, 0, 0, 0)),
        (360.0, "days since 2000-01-01", "noleap", (2000, 12, 27, 0, 0, 0, 0)),
        (-1.0, "days since 1582-10-15", "noleap", (1582, 10, 14, 0, 0, 0, 0)),
        (1.0, "days since 1582-10-04", "noleap", (1582, 10, 5, 0, 0, 0, 0)),
        (10.5, "days since 1582-10-04 00:00", "noleap", (1582, 10, 14, 12, 0, 0, 0)),
        (59.0, "days since 1900-01-01", "noleap", (1900, 3, 1, 0, 0, 0, 0)),
        (1460.0, "days since 1-1-1", "noleap", (5, 1, 1, 0, 0, 0, 0)),
        (-366.0, "days since 1-1-1", "noleap", (-1, 12, 31, 0, 0, 0, 0)),
        (-1.0, "days since -1-03-01", "noleap", (-1, 2, 28, 0, 0, 0, 0)),
        (730000.25, "days since 1-1-1", "noleap", (2001, 1, 1, 6, 0, 0, 0)),
        (1000000.0, "minutes since 1800-01-01 00:00:00", "noleap", (1801, 11, 26, 10, 40, 0, 0)),
        (86399.5, "seconds since 2000-02-28T00:00:00Z", "noleap", (2000, 2, 28, 23, 59, 59, 500000)),
        (-30.0, "hours since 2000-03-01 06:00:00", "noleap", (2000, 2, 28, 0, 0, 0, 0)),
        (0.0, "hours since 2000-01-01 06:00:00 -06:00", "noleap", (2000, 1, 1, 12, 0, 0, 0)),
        (0.0, "hours since 2000-01-01T06:00:00+05:30", "noleap", (2000, 1, 1, 0, 30, 0, 0)),
        (7.25, "min since 2000-01-01", "noleap", (2000, 1, 1, 0, 7, 15, 0)),
        (36.0, "h since 2004-02-28", "noleap", (2004, 3, 1, 12, 0, 0, 0)),
        (-10000000.0, "d since 2000-01-01", "noleap", (-25398, 9, 28, 0, 0, 0, 0)),
        (17067072.0, "hours since 1-1-1 00:00:0.0", "all_leap", (1943, 12, 22, 0, 0, 0, 0)),
        (0.0, "days since 1970-01-01 00:00:0.0", "all_leap", (1970, 1, 1, 0, 0, 0, 0)),
        (59.0, "days since 2000-01-01", "all_leap", (2000, 2, 29, 0, 0, 0, 0)),
        (365.0, "days since 2000-01-01", "all_leap", (2000, 12, 31, 0, 0, 0, 0)),
        (360.0, "days since 2000-01-01", "all_leap", (2000, 12, 26, 0, 0, 0, 0)),
        (-1.0, "days since 1582-10-15", "all_leap", (1582, 10, 14, 0, 0, 0, 0)),
        (1.0, "days since 1582-10-04", "all_leap", (1582, 10, 5, 0, 0, 0, 0)),
        (10.5, "days since 1582-10-04 00:00", "all_leap", (1582, 10, 14, 12, 0, 0, 0)),
        (59.0, "days since 1900-01-01", "all_leap", (1900, 2, 29, 0, 0, 0, 0)),
        (1460.0, "days since 1-1-1", "all_leap", (4, 12, 28, 0, 0, 0, 0)),
        (-366.0, "days since 1-1-1", "all_leap", (0, 1, 1, 0, 0, 0, 0)),
        (-1.0, "days since -1-03-01", "all_leap", (-1, 2, 29, 0, 0, 0, 0)),
        (730000.25, "days since 1-1-1", "all_leap", (1995, 7, 15, 6, 0, 0, 0)),
        (1000000.0, "minutes since 1800-01-01 00:00:00", "all_leap", (1801, 11, 24, 10, 40, 0, 0)),
        (86399.5, "seconds since 2000-02-28T00:00:00Z", "all_leap", (2000, 2, 28, 23, 59, 59, 500000)),
        (-30.0, "hours since 2000-03-01 06:00:00", "all_leap", (2000, 2, 29, 0, 0, 0, 0)),
        (0.0, "hours since 2000-01-01 06:00:00 -06:00", "all_leap", (2000, 1, 1, 12, 0, 0, 0)),
        (0.0, "hours since 2000-01-01T06:00:00+05:30", "all_leap", (2000, 1, 1, 0, 30, 0, 0)),
        (7.25, "min since 2000-01-01", "all_leap", (2000, 1, 1, 0, 7, 15, 0)),
        (36.0, "h since 2004-02-28", "all_leap", (2004, 2, 29, 12, 0, 0, 0)),
        (-10000000.0, "d since 2000-01-01", "all_leap", (-25323, 8, 6, 0, 0, 0, 0)),
        (17067072.0, "hours since 1-1-1 00:00:0.0", "360_day", (1976, 5, 9, 0, 0, 0, 0)),
        (0.0, "days since 1970-01-01 00:00:0.0", "360_day", (1970, 1, 1, 0, 0, 0, 0)),
        (59.0, "days since 2000-01-01", "360_day", (2000, 2, 30, 0, 0, 0, 0)),
        (365.0, "days since 2000-01-01", "360_day", (2001, 1, 6, 0, 0, 0, 0)),
        (360.0, "days since 2000-01-01", "360_day", (2001, 1, 1, 0, 0, 0, 0)),
        (-1.0, "days since 1582-10-15", "360_day", (1582, 10, 14, 0, 0, 0, 0)),
        (1.0, "days since 1582-10-04", "360_day", (1582, 10, 5, 0, 0, 0, 0)),
        (10.5, "days since 1582-10-04 00:00", "360_day", (1582, 10, 14, 12, 0, 0, 0)),
        (59.0, "days since 1900-01-01", "360_day", (1900, 2, 30, 0, 0, 0, 0)),
        (1460.0, "days since 1-1-1", "360_day", (5, 1, 21, 0, 0, 0, 0)),
        (-366.0, "days since 1-1-1", "360_day", (-1, 12, 25, 0, 0, 0, 0)),
        (-1.0, "days since -1-03-01", "360_day", (-1, 2, 30, 0, 0, 0, 0)),
        (730000.25, "days since 1-1-1", "360_day", (2028, 10, 11, 6, 0, 0, 0)),
        (1000000.0, "minutes since 1800-01-01 00:00:00", "360_day", (1801, 12, 5, 10, 40, 0, 0)),
        (86399.5, "seconds since 2000-02-28T00:00:00Z", "360_day", (2000, 2, 28, 23, 59, 59, 500000)),
        (-30.0, "hours since 2000-03-01 06:00:00", "360_day", (2000, 2, 30, 0, 0, 0, 0)),
        (0.0, "hours since 2000-01-01 06:00:00 -06:00", "360_day", (2000, 1, 1, 12, 0, 0, 0)),
        (0.0, "hours since 2000-01-01T06:00:00+05:30", "360_day", (2000, 1, 1, 0, 30, 0, 0)),
        (7.25, "min since 2000-01-01", "360_day", (2000, 1, 1, 0, 7, 15, 0)),
        (36.0, "h since 2004-02-28", "360_day", (2004, 2, 29, 12, 0, 0, 0)),
        (-10000000.0, "d since 2000-01-01", "360_day", (-25778, 3, 21, 0, 0, 0, 0)),
    ];
    for &(value, units, calendar, want) in rows {
        assert_eq!(
            parts(value, units, calendar),
            want,
            "{value} {units} ({calendar})"
        );
    }
}

#[test]
fn dates_are_written_as_iso_with_time_only_when_needed() {
    assert_eq!(label(6.0, "hours since 2000-01-01", ""), "2000-01-01 06:00");
    assert_eq!(
        label(90.0, "seconds since 2000-01-01", ""),
        "2000-01-01 00:01:30"
    );
    assert_eq!(
        label(86_399.5, "seconds since 2000-02-28T00:00:00Z", ""),
        "2000-02-28 23:59:59.5"
    );
    assert_eq!(
        label(1.0, "us since 2000-01-01", ""),
        "2000-01-01 00:00:00.000001"
    );
    assert_eq!(
        label(1.5, "ms since 2000-01-01", ""),
        "2000-01-01 00:00:00.0015"
    );
    // Years before 1000 are zero-padded; 1 BC is -0001 without a year 0, 0000 with one.
    assert_eq!(label(0.0, "days since 1-1-1", ""), "0001-01-01");
    assert_eq!(label(-1.0, "days since 1-1-1", "standard"), "-0001-12-31");
    assert_eq!(
        label(-1.0, "days since 1-1-1", "proleptic_gregorian"),
        "0000-12-31"
    );
    assert_eq!(
        label(0.0, "days since 12345-06-07", "noleap"),
        "12345-06-07"
    );
    // A fraction of a unit far from the reference is not lost (0.1 h = 6 min).
    assert_eq!(
        label(17_067_072.1, "hours since 1-1-1 00:00:0.0", ""),
        "1948-01-01 00:06"
    );
}

#[test]
fn unit_words_and_their_abbreviations_are_read() {
    for (units, want) in [
        ("s since 2000-01-01", "2000-01-01 00:00:02"),
        ("sec since 2000-01-01", "2000-01-01 00:00:02"),
        ("seconds since 2000-01-01", "2000-01-01 00:00:02"),
        ("min since 2000-01-01", "2000-01-01 00:02"),
        ("minutes since 2000-01-01", "2000-01-01 00:02"),
        ("h since 2000-01-01", "2000-01-01 02:00"),
        ("hr since 2000-01-01", "2000-01-01 02:00"),
        ("Hours since 2000-01-01", "2000-01-01 02:00"),
        ("d since 2000-01-01", "2000-01-03"),
        ("day since 2000-01-01", "2000-01-03"),
        ("DAYS SINCE 2000-01-01", "2000-01-03"),
        ("  days   since   2000-01-01  ", "2000-01-03"),
    ] {
        assert_eq!(label(2.0, units, ""), want, "{units}");
    }
}

#[test]
fn reference_dates_in_common_forms_are_read() {
    for (units, want) in [
        ("days since 1970-01-01", "1970-01-01"),
        ("days since 1970-1-1", "1970-01-01"),
        ("days since 1-1-1 00:00:0.0", "0001-01-01"),
        ("days since 1800-01-01 00:00:00", "1800-01-01"),
        ("days since 1800-01-01 00:00", "1800-01-01"),
        ("days since 2000-01-01T06:00:00Z", "2000-01-01 06:00"),
        ("days since 2000-01-01 06:00:00 UTC", "2000-01-01 06:00"),
        ("days since 2000-01-01 06:00:00 GMT", "2000-01-01 06:00"),
        // Zones move the reference to UTC (cftime: 06:00 -06:00 is 12:00 UTC).
        ("days since 2000-01-01 06:00:00 -06:00", "2000-01-01 12:00"),
        ("days since 2000-01-01 06:00:00 +0530", "2000-01-01 00:30"),
        ("days since 2000-01-01T06:00:00+05:30", "2000-01-01 00:30"),
        ("days since 2000-01-01 06:00:00 +05", "2000-01-01 01:00"),
        ("days since 2000-01-01 06:00:00-06", "2000-01-01 12:00"),
        (
            "days since 2000-01-01 00:00:00.25",
            "2000-01-01 00:00:00.25",
        ),
        ("days since 1970-01-01 UTC", "1970-01-01"),
    ] {
        assert_eq!(label(0.0, units, ""), want, "{units}");
    }
}

#[test]
fn months_and_years_are_refused_as_ambiguous() {
    for units in [
        "months since 2000-01-01",
        "month since 2000-01-01",
        "years since 2000-01-01",
        "yr since 2000-01-01",
        "common_years since 2000-01-01",
    ] {
        for calendar in ["standard", "360_day", "noleap"] {
            let error = decode(1.0, units, calendar).unwrap_err();
            assert!(
                matches!(error, CfTimeError::AmbiguousUnit { .. }),
                "{units}: {error:?}"
            );
            let text = error.to_string();
            assert!(
                text.contains("not a fixed length")
                    && text.contains(units.split(' ').next().unwrap_or("")),
                "{text}"
            );
        }
    }
}

#[test]
fn bad_units_calendars_and_dates_are_clear_errors() {
    let error = |value: f64, units: &str, calendar: &str| {
        decode(value, units, calendar)
            .map(|d| d.to_string())
            .unwrap_err()
    };
    assert!(matches!(
        error(1.0, "m s-1", ""),
        CfTimeError::NotATimeUnit { .. }
    ));
    assert!(matches!(
        error(1.0, "days", ""),
        CfTimeError::NotATimeUnit { .. }
    ));
    assert!(matches!(
        error(1.0, "days after 2000-01-01", ""),
        CfTimeError::NotATimeUnit { .. }
    ));
    assert!(matches!(
        error(1.0, "", ""),
        CfTimeError::NotATimeUnit { .. }
    ));
    let unknown = error(1.0, "fortnights since 2000-01-01", "");
    assert!(
        matches!(unknown, CfTimeError::UnknownUnit { .. }),
        "{unknown:?}"
    );
    assert!(unknown.to_string().contains("`fortnights`"), "{unknown}");
    let calendar = error(1.0, "days since 2000-01-01", "bogus");
    assert!(
        calendar.to_string().contains("calendar `bogus`"),
        "{calendar}"
    );
    for name in ["none", "tai", "gregorian_julian"] {
        assert!(matches!(
            error(1.0, "days since 2000-01-01", name),
            CfTimeError::UnknownCalendar { .. }
        ));
    }
    // Calendar names are case-insensitive and may have blanks around them.
    assert!(decode(1.0, "days since 2000-01-01", " NoLeap ").is_ok());

    for (units, calendar, says) in [
        (
            "days since 1582-10-10",
            "standard",
            "does not exist in the standard calendar",
        ),
        ("days since 0-1-1", "standard", "year 0 does not exist"),
        ("days since 0-1-1", "julian", "year 0 does not exist"),
        (
            "days since 2001-02-29",
            "noleap",
            "day 29 does not exist in month 2",
        ),
        ("days since 2000-02-30", "standard", "day 30 does not exist"),
        ("days since 1900-02-29", "proleptic_gregorian", "day 29"),
        ("days since 2000-02-31", "360_day", "day 31"),
        ("days since 2000-13-01", "", "month 13"),
        ("days since 2000-00-01", "", "month 0"),
        ("days since 2000-01-00", "", "day 0"),
        ("days since 2000-01-01 24:00", "", "not a time of day"),
        ("days since 2000-01-01 12:60", "", "not a time of day"),
        ("days since 2000-01-01 12", "", "cannot read `12`"),
        ("days since 2000-01-01T12", "", "cannot read `12`"),
        ("days since 2000-01-01 12:00 +25:00", "", "time zone"),
        ("days since 2000-01-01 12:00 EST", "", "time zone"),
        (
            "days since 2000-01-01 12:00 UTC extra",
            "",
            "unexpected `extra`",
        ),
        ("days since 2000/01/01", "", "year-month-day"),
        ("days since yesterday", "", "year-month-day"),
        ("days since 2000-01", "", "year-month-day"),
        ("days since 99999999-01-01", "", "year"),
        ("days since 2000-01-01x", "", "cannot read `x`"),
        ("days since 2000-01-01 1:2:3:4", "", "cannot read the time"),
        ("days since 2000-01-01 ab:cd", "", "cannot read the time"),
    ] {
        let found = error(0.0, units, calendar);
        assert!(
            matches!(found, CfTimeError::BadReference { .. }),
            "{units} ({calendar}): {found:?}"
        );
        let text = found.to_string();
        assert!(text.contains(says), "{units} ({calendar}): {text}");
    }
    // The days the standard calendar skips exist in the others.
    assert_eq!(label(0.0, "days since 1582-10-10", "julian"), "1582-10-10");
    assert_eq!(
        label(0.0, "days since 1582-10-10", "proleptic_gregorian"),
        "1582-10-10"
    );
}

#[test]
fn huge_or_non_finite_values_are_refused_without_overflow() {
    for value in [1e300, -1e300, f64::MAX, -f64::MAX] {
        for units in [
            "days since 2000-01-01",
            "seconds since 2000-01-01",
            "us since 1-1-1",
        ] {
            let error = decode(value, units, "").unwrap_err();
            assert!(
                matches!(error, CfTimeError::OutOfRange { .. }),
                "{value} {units}: {error:?}"
            );
        }
    }
    assert!(decode(MAX_OFFSET_DAYS * 1.01, "days since 2000-01-01", "").is_err());
    assert!(decode(MAX_OFFSET_DAYS * 86_400.0 * 1.01, "s since 2000-01-01", "").is_err());
    let error = decode(1e300, "days since 2000-01-01", "").unwrap_err();
    assert!(error.to_string().contains("1e300 days"), "{error}");
    for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert!(matches!(
            decode(value, "days since 2000-01-01", "").unwrap_err(),
            CfTimeError::NotFinite { .. }
        ));
    }
    // The largest offsets accepted decode, in every calendar, from the farthest reference.
    for calendar in [
        "standard",
        "proleptic_gregorian",
        "julian",
        "noleap",
        "all_leap",
        "360_day",
    ] {
        for value in [MAX_OFFSET_DAYS, -MAX_OFFSET_DAYS] {
            for units in [
                "days since 1000000-12-30 23:59:59.999999",
                "days since -1000000-01-01",
            ] {
                assert!(
                    decode(value, units, calendar).is_ok(),
                    "{value} {units} {calendar}"
                );
            }
        }
    }
}

#[test]
fn day_numbers_and_dates_are_inverse_and_consecutive() {
    let calendars = [
        Calendar::Standard,
        Calendar::ProlepticGregorian,
        Calendar::Julian,
        Calendar::NoLeap,
        Calendar::AllLeap,
        Calendar::Day360,
    ];
    for calendar in calendars {
        // Around the year 0, the 1582 switch, 1900/2000 and far out, day by day.
        for start in [-800_000_i64, -150_000, -1000, -10, 0, 300_000, 400_000_000] {
            let mut previous = calendar.date_of(start - 1);
            for number in start..start + 2000 {
                let (year, month, day) = calendar.date_of(number);
                assert!(
                    calendar.check_date(year, month, day).is_ok(),
                    "{calendar}: {number} -> {year}-{month}-{day}"
                );
                assert_eq!(
                    calendar.day_number(year, month, day),
                    number,
                    "{calendar}: {year}-{month}-{day}"
                );
                // The next day: day + 1, or the 1st of the next month (or year).
                let (py, pm, pd) = previous;
                let next_day = (py, pm, pd + 1);
                let next_month = if pm == 12 {
                    (py + 1, 1, 1)
                } else {
                    (py, pm + 1, 1)
                };
                let switch = calendar == Calendar::Standard && (py, pm, pd) == (1582, 10, 4);
                assert!(
                    (year, month, day) == next_day
                        || (year, month, day) == next_month
                        || (switch && (year, month, day) == (1582, 10, 15)),
                    "{calendar}: {py}-{pm}-{pd} then {year}-{month}-{day}"
                );
                previous = (year, month, day);
            }
        }
    }
}

#[test]
fn julian_and_gregorian_scales_share_their_days() {
    // Gregorian 1582-10-15 followed Julian 1582-10-04; Gregorian 1970-01-01 is Julian 1969-12-19.
    assert_eq!(gregorian_day(1582, 10, 15), GREGORIAN_START_DAY);
    assert_eq!(julian_day(1582, 10, 4), GREGORIAN_START_DAY - 1);
    assert_eq!(julian_day(1582, 10, 5), gregorian_day(1582, 10, 15));
    assert_eq!(gregorian_day(1970, 1, 1), 0);
    assert_eq!(julian_day(1969, 12, 19), 0);
    // Leap rules: 1900 is a Julian leap year but not a Gregorian one; 2000 is both.
    assert!(julian_leap(1900) && !gregorian_leap(1900));
    assert!(julian_leap(2000) && gregorian_leap(2000));
    assert!(julian_leap(0) && gregorian_leap(0) && !gregorian_leap(-1));
}

#[test]
fn parsed_units_keep_their_unit_and_calendar() {
    let units = TimeUnits::parse("hours since 1-1-1 00:00:0.0", Calendar::NoLeap).unwrap();
    assert_eq!(units.unit, TimeUnit::Hours);
    assert_eq!(units.calendar, Calendar::NoLeap);
    assert_eq!(units.decode(24.0).unwrap().to_string(), "0001-01-02");
    assert_eq!(Calendar::parse("").unwrap(), Calendar::Standard);
    assert_eq!(Calendar::parse("366_day").unwrap().name(), "all_leap");
    assert_eq!(TimeUnit::Minutes.microseconds(), 60_000_000);
}

#[test]
fn arbitrary_text_is_an_error_or_a_date_never_a_panic() {
    // A fixed pseudo-random walk over characters that occur in units, plus multi-byte ones.
    let alphabet: Vec<char> = "0123456789--::  ..TtZz+sinceUTCdhé°\u{2212}"
        .chars()
        .collect();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    let calendars = [
        "",
        "noleap",
        "360_day",
        "julian",
        "all_leap",
        "proleptic_gregorian",
    ];
    for case in 0..20_000 {
        let length = next() % 28;
        let tail: String = (0..length)
            .map(|_| alphabet[next() % alphabet.len()])
            .collect();
        let units = match case % 3 {
            0 => format!("days since {tail}"),
            1 => format!("h since 2000-01-01{tail}"),
            _ => tail,
        };
        let value = [0.0, -1.5, 1e9, 123.456][case % 4];
        if let Ok(date) = decode(value, &units, calendars[case % calendars.len()]) {
            assert!((1..=12).contains(&date.month), "{units}: {date:?}");
        }
    }
    // The multi-byte zone that once split a character.
    assert!(decode(0.0, "days since 2000-01-01 00:00 1é1", "").is_err());
}
