// CSV as RFC 4180 writes it (CRLF between records; a field holding a quote, a comma, CR or LF is quoted,
// its quotes doubled), with cells protected from formula injection: a spreadsheet opening the file runs a
// cell that begins with = + - or @ (and, in some, a tab or CR) as a formula, so such a cell gets a
// leading apostrophe, which spreadsheets read as "this is text". The apostrophe stays in the data: a
// program reading the file back sees it.

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export const protectFormula = (value: string): string => (FORMULA_START.test(value) ? `'${value}` : value);

export const csvField = (value: string): string => {
  const safe = protectFormula(value);
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export const csvRecord = (values: readonly string[]): string => `${values.map(csvField).join(",")}\r\n`;
