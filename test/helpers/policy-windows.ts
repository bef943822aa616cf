/**
 * The `windows:` section with the weeknight window that policy tests schedule changes in: 22:00
 * to 02:00 Berlin time, Monday to Friday, so a window that crosses midnight is always covered.
 * It ends with a newline; more windows may follow it, indented by two spaces.
 */
export const WEEKNIGHT_WINDOWS = `windows:
  night:
    days: [mon, tue, wed, thu, fri]
    start: "22:00"
    end: "02:00"
    timezone: Europe/Berlin
`;
