/**
 * `format` as regular languages. Most formats JSON Schema names are regular: the RFC 3339 dates
 * and times (month lengths and leap years included), uuid, ipv4, ipv6 (RFC 4291 text forms), uri,
 * uri-reference and iri forms (RFC 3986 / 3987 syntax), uri-template (RFC 6570), email (RFC 5321
 * mailbox), hostname (RFC 1123 labels), durations (RFC 3339 appendix A), JSON pointers. What
 * stays loose is listed in {@link LOOSE_FORMATS} (reported as RELAXATIONS.format).
 */

const YEAR = "[0-9]{4}";
// Years divisible by 4 but not by 100, or by 400: the only ones with a 29 February.
const LEAP_YEAR = "([0-9]{2}(0[48]|[2468][048]|[13579][26])|([02468][048]|[13579][26])00)";
/** A calendar date (RFC 3339 full-date), month lengths and leap years included. */
const DATE =
  `(${YEAR}-(0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])` +
  `|${YEAR}-(0[469]|11)-(0[1-9]|[12][0-9]|30)` +
  `|${YEAR}-02-(0[1-9]|1[0-9]|2[0-8])` +
  `|${LEAP_YEAR}-02-29)`;
const TIME = "([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])";
const IPV4_PART = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
const IPV4 = `(${IPV4_PART}\\.){3}${IPV4_PART}`;
const H16 = "[0-9A-Fa-f]{1,4}";
const LS32 = `(${H16}:${H16}|${IPV4})`;
/** RFC 3986's IPv6address: eight groups, or fewer around one "::". */
const IPV6 = [
  `(${H16}:){6}${LS32}`,
  `::(${H16}:){5}${LS32}`,
  `(${H16})?::(${H16}:){4}${LS32}`,
  `((${H16}:){0,1}${H16})?::(${H16}:){3}${LS32}`,
  `((${H16}:){0,2}${H16})?::(${H16}:){2}${LS32}`,
  `((${H16}:){0,3}${H16})?::${H16}:${LS32}`,
  `((${H16}:){0,4}${H16})?::${LS32}`,
  `((${H16}:){0,5}${H16})?::${H16}`,
  `((${H16}:){0,6}${H16})?::`,
]
  .map((a) => `(${a})`)
  .join("|");
const HOST_LABEL = "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const HOSTNAME = `${HOST_LABEL}(\\.${HOST_LABEL})*\\.?`;

// RFC 3986 pieces (ASCII); the IRI forms of RFC 3987 add every non-ASCII character.
const UNRESERVED = "A-Za-z0-9._~\\-";
const SUB_DELIMS = "!$&'()*+,;=";
const PCT = "%[0-9A-Fa-f]{2}";
function uriForms(extra: string): { absolute: string; reference: string } {
  const pchar = `([${UNRESERVED}${SUB_DELIMS}:@${extra}]|${PCT})`;
  const regChar = `([${UNRESERVED}${SUB_DELIMS}${extra}]|${PCT})`;
  const ipLiteral = `\\[((${IPV6})|v[0-9A-Fa-f]+\\.[${UNRESERVED}${SUB_DELIMS}:]+)\\]`;
  const authority = `(([${UNRESERVED}${SUB_DELIMS}:${extra}]|${PCT})*@)?(${ipLiteral}|${regChar}*)(:[0-9]*)?`;
  const segment = `${pchar}*`;
  const segmentNz = `${pchar}+`;
  const noColon = `([${UNRESERVED}${SUB_DELIMS}@${extra}]|${PCT})+`;
  const tail = `(\\?(${pchar}|[/?])*)?(#(${pchar}|[/?])*)?`;
  const hier = `(//${authority}(/${segment})*|/(${segmentNz}(/${segment})*)?|${segmentNz}(/${segment})*)?`;
  const relative = `(//${authority}(/${segment})*|/(${segmentNz}(/${segment})*)?|${noColon}(/${segment})*)?`;
  const absolute = `[A-Za-z][A-Za-z0-9+.\\-]*:${hier}${tail}`;
  return { absolute, reference: `(${absolute}|${relative}${tail})` };
}
const URI = uriForms("");
const IRI = uriForms("\\u00a0-\\ud7ff\\uf900-\\ufdcf\\ufdf0-\\uffef");

// RFC 6570: literals, or expressions `{op var[:n|*], ...}`.
const VARNAME = `([A-Za-z0-9_]|${PCT})(\\.?([A-Za-z0-9_]|${PCT}))*`;
const VARSPEC = `${VARNAME}(:[1-9][0-9]{0,3}|\\*)?`;
const URI_TEMPLATE = `(([^\\x00-\\x20"'%<>\\\\^\`{|}\\x7f]|${PCT})|\\{[+#./;?&=,!@|]?${VARSPEC}(,${VARSPEC})*\\})*`;

// RFC 5321 Mailbox: a dot-string or quoted local part, at a hostname or an address literal.
const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~\\-]+";
const QUOTED = '"([\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\x20-\\x7e])*"';
const EMAIL = `(${ATOM}(\\.${ATOM})*|${QUOTED})@(${HOSTNAME}|\\[${IPV4}\\]|\\[IPv6:(${IPV6})\\])`;

// RFC 3339 appendix A: P…Y…M…D, T…H…M…S, or weeks.
const DURATION =
  "P(([0-9]+D|[0-9]+M([0-9]+D)?|[0-9]+Y([0-9]+M([0-9]+D)?)?)" +
  "(T([0-9]+H([0-9]+M([0-9]+S)?)?|[0-9]+M([0-9]+S)?|[0-9]+S))?" +
  "|T([0-9]+H([0-9]+M([0-9]+S)?)?|[0-9]+M([0-9]+S)?|[0-9]+S)|[0-9]+W)";

const JSON_POINTER = "(/([^~/]|~[01])*)*";

/** Formats we constrain, as anchored regexes (JavaScript syntax, `u` flag). */
export const FORMAT_PATTERNS: Readonly<Record<string, string>> = {
  date: `^${DATE}$`,
  time: `^${TIME}$`,
  "date-time": `^${DATE}[Tt]${TIME}$`,
  duration: `^${DURATION}$`,
  uuid: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
  ipv4: `^${IPV4}$`,
  ipv6: `^(${IPV6})$`,
  email: `^${EMAIL}$`,
  "idn-email": "^[^\\s@]+@[^\\s@]+$",
  hostname: `^${HOSTNAME}$`,
  "idn-hostname": "^[^\\s.]+(\\.[^\\s.]+)*\\.?$",
  uri: `^${URI.absolute}$`,
  "uri-reference": `^${URI.reference}$`,
  iri: `^${IRI.absolute}$`,
  "iri-reference": `^${IRI.reference}$`,
  "uri-template": `^${URI_TEMPLATE}$`,
  "json-pointer": `^${JSON_POINTER}$`,
  "relative-json-pointer": `^(0|[1-9][0-9]*)(#|${JSON_POINTER})$`,
};

/** Formats whose pattern is only a shape (a superset of the valid strings), with what it leaves out. */
export const LOOSE_FORMATS: Readonly<Record<string, string>> = {
  "idn-email": "any non-space text around one @",
  hostname: "the total length (253) is not checked",
  "idn-hostname": "labels are not checked against IDNA",
  email: "the total lengths (64 local, 254 in all) are not checked",
};
