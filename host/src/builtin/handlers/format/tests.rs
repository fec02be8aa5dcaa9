use super::datetime;

#[test]
fn datetime_renders_utc_calendar_dates() {
    assert_eq!(datetime(0.0), "1970-01-01 00:00");
    assert_eq!(datetime(951_782_400.0), "2000-02-29 00:00");
    assert_eq!(datetime(1_714_564_800.0 + 3_660.0), "2024-05-01 13:01");
}
