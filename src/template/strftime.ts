/**
 * Python `datetime.strftime` for the directives chat templates use (local time, C locale).
 *
 * @example
 * strftime(new Date(2025, 0, 15), "%d %b %Y"); // "15 Jan 2025"
 */
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

export function strftime(d: Date, fmt: string): string {
  const p2 = (n: number) => String(n).padStart(2, "0");
  return fmt.replace(/%([a-zA-Z%])/g, (m, c: string) => {
    switch (c) {
      case "Y":
        return String(d.getFullYear());
      case "y":
        return p2(d.getFullYear() % 100);
      case "m":
        return p2(d.getMonth() + 1);
      case "d":
        return p2(d.getDate());
      case "e":
        return String(d.getDate()).padStart(2, " ");
      case "H":
        return p2(d.getHours());
      case "I":
        return p2(((d.getHours() + 11) % 12) + 1);
      case "M":
        return p2(d.getMinutes());
      case "S":
        return p2(d.getSeconds());
      case "p":
        return d.getHours() < 12 ? "AM" : "PM";
      case "B":
        return MONTHS[d.getMonth()]!;
      case "b":
        return MONTHS[d.getMonth()]!.slice(0, 3);
      case "A":
        return DAYS[d.getDay()]!;
      case "a":
        return DAYS[d.getDay()]!.slice(0, 3);
      case "j": {
        const start = new Date(d.getFullYear(), 0, 1);
        const day =
          Math.round((new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime() - start.getTime()) / 86400000) + 1;
        return String(day).padStart(3, "0");
      }
      case "w":
        return String(d.getDay());
      case "%":
        return "%";
      default:
        return m;
    }
  });
}
