// Mozilla's ical.js reading RFC 5546 messages as a mail client's calendar would:
// each object's METHOD and, per VEVENT, what identifies it and who it is between.
//
//   node itip.mjs < texts.json    [ics, ...] -> [{method, events: [...]}, ...]
//
// An event is {uid, recurrence_id, sequence, start, status, organizer: [uri, cn],
// attendees: [[uri, cn], ...]}, instants as UTC ISO text (null when absent).
// The Python side is tests/support/itip_consumers.py.
import { readFileSync } from "node:fs";

import ICAL from "ical.js";

function instant(value) {
  return value ? value.toJSDate().toISOString() : null;
}

function address(property) {
  if (!property) return null;
  return [String(property.getFirstValue()), property.getParameter("cn") ?? ""];
}

function read(text) {
  const calendar = new ICAL.Component(ICAL.parse(text));
  const events = calendar.getAllSubcomponents("vevent").map((component) => {
    const event = new ICAL.Event(component);
    return {
      uid: event.uid,
      recurrence_id: instant(event.recurrenceId),
      sequence: event.sequence,
      start: instant(event.startDate),
      status: component.getFirstPropertyValue("status") ?? "",
      organizer: address(component.getFirstProperty("organizer")),
      attendees: component.getAllProperties("attendee").map(address),
    };
  });
  return { method: calendar.getFirstPropertyValue("method"), events };
}

const texts = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(texts.map(read)));
