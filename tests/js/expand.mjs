// Mozilla's ical.js as a calendar app would use it: expand every VEVENT of a feed
// between two instants and print [UTC ISO instant, SUMMARY] pairs as JSON.
//
//   node expand.mjs START END < feed.ics     one feed: a JSON list of pairs
//   node expand.mjs --batch < jobs.json      [{ics, start, end}, ...]: a list of lists
//   node expand.mjs --batch --ends < ...     the same, each instance [start, end, SUMMARY]
//   node expand.mjs --batch --notes < ...    the same, each [start, SUMMARY, DESCRIPTION, URL]
//
// START and END are ISO instants; an instance is listed when its start lies in
// [START, END). Starting node costs more than expanding, so the Python side
// (tests/feed_consumers.py) sends all the feeds of a test in one batch.
import { readFileSync } from "node:fs";

import ICAL from "ical.js";

function registerZones(calendar) {
  // ical.js knows no IANA zone of its own: a TZID resolves only through the
  // VTIMEZONE the feed carries, so this is also a check of those definitions.
  ICAL.TimezoneService.reset();
  for (const zone of calendar.getAllSubcomponents("vtimezone")) {
    ICAL.TimezoneService.register(zone);
  }
}

function checkZonesKnown(component) {
  for (const property of component.getAllProperties()) {
    const tzid = property.getParameter("tzid");
    if (tzid && !ICAL.TimezoneService.has(tzid)) {
      // ical.js would read the time as floating (local) without a word.
      throw new Error(`TZID ${tzid} of ${property.name} has no VTIMEZONE in the feed`);
    }
  }
}

let withEnds = false;
let withNotes = false;

function instance(startDate, item, endDate) {
  const start = startDate.toJSDate().toISOString();
  if (withNotes) {
    const url = item.component.getFirstPropertyValue("url");
    return [start, item.summary ?? "", item.description ?? "", url ? String(url) : ""];
  }
  if (!withEnds) return [start, item.summary ?? ""];
  // ical.js gives an event without DTEND or DURATION its start as its end.
  return [start, endDate.toJSDate().toISOString(), item.summary ?? ""];
}

function expand(text, start, end) {
  const calendar = new ICAL.Component(ICAL.parse(text));
  registerZones(calendar);
  const from = ICAL.Time.fromJSDate(new Date(start), true);
  const until = ICAL.Time.fromJSDate(new Date(end), true);
  const inWindow = (time) => time.compare(from) >= 0 && time.compare(until) < 0;
  const masters = [];
  const overridesByUid = new Map();
  for (const component of calendar.getAllSubcomponents("vevent")) {
    checkZonesKnown(component);
    if (component.hasProperty("recurrence-id")) {
      const uid = component.getFirstPropertyValue("uid");
      overridesByUid.set(uid, [...(overridesByUid.get(uid) ?? []), component]);
    } else {
      masters.push(component);
    }
  }
  const found = [];
  const related = new Set();
  for (const component of masters) {
    const uid = component.getFirstPropertyValue("uid");
    const overrides = overridesByUid.get(uid) ?? [];
    // Overrides are related by UID explicitly: left to itself, ical.js relates
    // every RECURRENCE-ID component of the calendar to every master.
    const event = new ICAL.Event(component, { strictExceptions: true, exceptions: overrides });
    if (!event.isRecurring()) {
      if (inWindow(event.startDate)) found.push(instance(event.startDate, event, event.endDate));
      continue;
    }
    related.add(uid);
    const slots = event.iterator();
    for (let slot = slots.next(); slot && slot.compare(until) < 0; slot = slots.next()) {
      const details = event.getOccurrenceDetails(slot);
      if (inWindow(details.startDate)) {
        found.push(instance(details.startDate, details.item, details.endDate));
      }
    }
  }
  // An override without a recurring master is a single event of its own.
  for (const [uid, overrides] of overridesByUid) {
    if (related.has(uid)) continue;
    for (const component of overrides) {
      const event = new ICAL.Event(component);
      if (inWindow(event.startDate)) found.push(instance(event.startDate, event, event.endDate));
    }
  }
  const key = (item) => JSON.stringify(item);
  found.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return found;
}

const input = readFileSync(0, "utf8");
const args = process.argv.slice(2);
let result;
withEnds = args.includes("--ends");
withNotes = args.includes("--notes");
if (args[0] === "--batch") {
  result = JSON.parse(input).map((job) => expand(job.ics, job.start, job.end));
} else if (args.length === 2) {
  result = expand(input, args[0], args[1]);
} else {
  process.stderr.write("usage: node expand.mjs START END < feed.ics | node expand.mjs --batch\n");
  process.exit(2);
}
process.stdout.write(JSON.stringify(result));
