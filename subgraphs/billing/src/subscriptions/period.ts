/** Calendar-month periods: Jan 31 + 1 month is the last day of February, as billing systems do. */
export function addMonths(date: Date, months: number): Date {
  const d = new Date(date.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}

/** The period containing `now` for a subscription anchored at `start` (monthly). */
export function periodAt(start: Date, now: Date): { start: Date; end: Date } {
  let n = 0;
  while (addMonths(start, n + 1).getTime() <= now.getTime()) n++;
  return { start: addMonths(start, n), end: addMonths(start, n + 1) };
}
