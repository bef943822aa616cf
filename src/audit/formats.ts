import { type ExportEvent, eventSeverity, toolOf } from './export-event.js';

/*
 * How an exported event is written for syslog: an RFC 5424 message (facility 13, "log audit") with
 * the chain link in structured data, carrying the event as JSON or as ArcSight CEF, framed by octet
 * counting (RFC 6587) so a message may hold any character, newlines included.
 */

const FACILITY_LOG_AUDIT = 13;
const SEVERITY = { warning: 4, notice: 5, info: 6 } as const;
const CEF_SEVERITY = { warning: 7, notice: 5, info: 3 } as const;
// 32473 is the enterprise number RFC 5612 reserves for examples and documentation.
const SD_ID = 'netops@32473';

export type SyslogFormat = 'json' | 'cef';

export interface SyslogHeader {
  hostname: string;
  appName: string;
  procId: string;
  version: string;
}

/** One RFC 5424 message (without its frame). */
export function syslogMessage(event: ExportEvent, format: SyslogFormat, header: SyslogHeader): string {
  const pri = FACILITY_LOG_AUDIT * 8 + SEVERITY[eventSeverity(event)];
  const msgId = headerField(event.type, 32);
  const sd = `[${SD_ID} seq="${event.seq}" change="${sdValue(event.change)}" prev="${event.prev}" hash="${event.hash}"]`;
  const body = format === 'cef' ? cefLine(event, header.version) : JSON.stringify(event);
  const timestamp = event.at === '' ? '-' : event.at;
  return `<${pri}>1 ${timestamp} ${headerField(header.hostname, 255)} ${headerField(header.appName, 48)} ${headerField(header.procId, 128)} ${msgId} ${sd} ${body}`;
}

/** RFC 6587 octet counting: the message's length in bytes, a space, the message. */
export function octetFrame(message: string): string {
  return `${Buffer.byteLength(message, 'utf8')} ${message}`;
}

/** The event as one ArcSight CEF line. */
export function cefLine(event: ExportEvent, version: string): string {
  const header = [
    'CEF:0',
    cefHeader('netops-bot'),
    cefHeader('netops-bot'),
    cefHeader(version),
    cefHeader(event.type),
    cefHeader(`change ${event.type}`),
    String(CEF_SEVERITY[eventSeverity(event)]),
  ].join('|');
  const fields: [string, string | number | undefined][] = [
    ['rt', Date.parse(event.at) || undefined],
    ['suser', event.actor.name ?? event.actor.userId],
    ['suid', event.actor.userId],
    ['cs1Label', 'change'],
    ['cs1', event.change],
    ['cs2Label', 'tool'],
    ['cs2', toolOf(event)],
    ['cs3Label', 'prev'],
    ['cs3', event.prev],
    ['cs4Label', 'hash'],
    ['cs4', event.hash],
    ['cn1Label', 'seq'],
    ['cn1', event.seq],
    ['msg', JSON.stringify(event.event)],
  ];
  const extension = fields
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([key, value]) => `${key}=${cefValue(String(value))}`)
    .join(' ');
  return `${header}|${extension}`;
}

function cefHeader(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/[\r\n]+/g, ' ');
}

function cefValue(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/=/g, '\\=').replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

/** A header field: printable US-ASCII without spaces, at most `max` characters; `-` when empty. */
function headerField(text: string, max: number): string {
  const printable = text.replace(/[^\x21-\x7e]/g, '_').slice(0, max);
  return printable === '' ? '-' : printable;
}

/** A structured-data parameter value: `"`, `\` and `]` escaped (RFC 5424 §6.3.3). */
function sdValue(text: string): string {
  return text.replace(/[\\"\]]/g, (c) => `\\${c}`);
}
