import { describe, expect, it } from 'vitest';
import { readResultMessage } from '../../src/slack/blocks/read-result.js';
import { codeBlockLines } from '../helpers/slack-text.js';

/** The lines inside the message's code blocks. */
function codeLines(message: ReturnType<typeof readResultMessage>): string[] {
  return codeBlockLines(message.blocks);
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

  it('keeps every line within the code block width and every name, address and place whole', () => {
    const lines = codeLines(readResultMessage('list_clients', 'default', clients));

    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    const text = lines.join('\n');
    clients.forEach((client, i) => {
      for (const whole of [client.name, client.ip]) expect(text).toContain(whole);
      // The uplink is wrapped at a space in its column: its last words on the row's next line.
      expect(text).toMatch(new RegExp(`${client.ip} +Access point, east wing, +signal.*\\n +floor ${i}\\n`));
    });
    expect(text).not.toMatch(/^\w+: /m);
    // The ids gave way first, and the count line says how to ask for them in Slack.
    expect(text).toContain('(4 rows; /net … ids shows mac, network_id)');
  });

  it('shows the ids whole when asked (`/net … ids`), cutting the note instead', () => {
    const narrow = clients.map(({ mac, ip, note }) => ({ mac, ip, note }));

    const plain = codeLines(readResultMessage('list_clients', 'default', narrow));
    const asked = codeLines(readResultMessage('list_clients', 'default', narrow, undefined, { ids: true }));

    expect(plain[0]).toMatch(/^ip\s+note$/);
    expect(plain[1]).toBe(`10.20.0.100  ${clients[0]?.note}`);
    expect(asked[0]).toMatch(/^mac\s+ip\s+note$/);
    expect(asked[1]).toMatch(/^aa:bb:cc:dd:ee:00 {2}10\.20\.0\.100 {2}signal fine.*…$/);
    expect(asked[1]?.length).toBe(100);
  });

  it("keeps a column the tool declares whole, wrapped at its spaces within Slack's width", () => {
    const rows = [{ name: 'r1', applies_to: `network ${'Living Room Devices '.repeat(6)}(VLAN 20)` }];

    const lines = codeLines(
      readResultMessage('list_x', 'default', rows, undefined, { identifiers: ['applies_to'] }),
    );

    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    expect(lines.join(' ')).not.toContain('…');
    expect(lines.slice(1, -1).join(' ').replace(/\s+/g, ' ')).toContain(rows[0]?.applies_to.trim());
  });
});
