import { describe, expect, it } from 'vitest';
import { readResultMessage } from '../../src/slack/blocks/read-result.js';

/** The lines inside the message's code blocks. */
function codeLines(message: ReturnType<typeof readResultMessage>): string[] {
  return message.blocks.flatMap((block) => {
    const text = block.type === 'section' ? (block.text?.text ?? '') : '';
    if (!text.startsWith('```')) return [];
    return text
      .replace(/^```\n/, '')
      .replace(/\n```$/, '')
      .split('\n');
  });
}

describe('readResultMessage: tables in code blocks', () => {
  const clients = Array.from({ length: 4 }, (_, i) => ({
    mac: `aa:bb:cc:dd:ee:0${i}`,
    name: `Meeting room ${i} ceiling display controller`,
    network_id: `6500f0c4e1b2a3000c0ffee${i}`,
    ip: `10.20.0.${100 + i}`,
    uplink_device_name: `Access point, east wing, floor ${i}`,
    note: 'signal fine; roams between the two access points of the east wing every few minutes',
  }));

  it('keeps every line within the code block width and every identifier whole', () => {
    const lines = codeLines(readResultMessage('list_clients', 'default', clients));

    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    const text = lines.join('\n');
    for (const client of clients) {
      for (const id of [client.mac, client.name, client.network_id, client.ip, client.uplink_device_name]) {
        expect(text).toContain(id);
      }
    }
    expect(text).toContain('(4 rows)');
  });

  it('narrows a table only in its descriptive columns when it can still be a table', () => {
    const narrow = clients.map(({ mac, ip, note }) => ({ mac, ip, note }));

    const lines = codeLines(readResultMessage('list_clients', 'default', narrow));

    expect(lines[0]).toMatch(/^mac\s+ip\s+note$/);
    expect(lines[1]).toMatch(/^aa:bb:cc:dd:ee:00 {2}10\.20\.0\.100 {2}signal fine.*…$/);
    expect(lines[1]?.length).toBe(100);
  });
});
