import { describe, expect, it } from 'vitest';
import {
  parseCommand,
  parseCommandLine,
  tokenize,
  unwrapSlackMarkup,
} from '../../src/commands/parse-command-line.js';
import { ValidationError } from '../../src/errors.js';

/** The words of a line, without their quote positions. */
function words(line: string): string[] {
  return tokenize(line).map((t) => t.text);
}

function validationIssues(fn: () => unknown): { field: string; rule: string }[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error.issues;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('tokenize', () => {
  it('splits on any run of whitespace, including tabs and no-break spaces', () => {
    const tokens = words('  vlans \t limit=5\u00a0site=lab  ');

    expect(tokens).toEqual(['vlans', 'limit=5', 'site=lab']);
  });

  it('keeps double- and single-quoted text together and drops the quotes', () => {
    const tokens = words(`create_network name="Guest WiFi" domain_name='corp lan'`);

    expect(tokens).toEqual(['create_network', 'name=Guest WiFi', 'domain_name=corp lan']);
  });

  it('honours the smart quotes Slack and phones produce', () => {
    const tokens = words('network “Guest WiFi” ‘IoT Lab’ ”Both Closing”');

    expect(tokens).toEqual(['network', 'Guest WiFi', 'IoT Lab', 'Both Closing']);
  });

  it('treats a right single quote inside a word as an apostrophe', () => {
    const tokens = words('network Bob’s-lab');

    expect(tokens).toEqual(['network', 'Bob’s-lab']);
  });

  it('unescapes backslashes inside quotes', () => {
    const tokens = words(String.raw`x name="say \"hi\"" path='C:\\temp' it='it\'s'`);

    expect(tokens).toEqual(['x', 'name=say "hi"', 'path=C:\\temp', "it=it's"]);
  });

  it('leaves backslashes outside quotes alone', () => {
    expect(words(String.raw`x filter=a\b`)).toEqual(['x', String.raw`filter=a\b`]);
  });

  it('keeps an empty quoted string as an empty token', () => {
    expect(words('x "" name=""')).toEqual(['x', '', 'name=']);
  });

  it('refuses an unterminated quote and says where it started', () => {
    const issues = validationIssues(() => tokenize('network "Guest WiFi'));

    expect(issues).toHaveLength(1);
    expect(issues[0]?.field).toBe('command');
    expect(issues[0]?.rule).toBe('unterminated quote " starting at character 9');
  });

  it('refuses an unterminated smart quote and a quote ending in a backslash', () => {
    expect(validationIssues(() => tokenize('network “Guest'))[0]?.rule).toContain('unterminated quote “');
    expect(validationIssues(() => tokenize(String.raw`x name="abc\"`))[0]?.rule).toContain('unterminated');
  });
});

describe('parseCommand', () => {
  it('drops a leading /net or net and lower-cases the command', () => {
    expect(parseCommandLine('/net VLANs').command).toBe('vlans');
    expect(parseCommandLine('net vlans').command).toBe('vlans');
    expect(parseCommandLine('vlans').command).toBe('vlans');
  });

  it('gives an empty command for an empty line or a bare /net', () => {
    expect(parseCommandLine('')).toEqual({ command: '', positionals: [], args: {} });
    expect(parseCommandLine('/net')).toEqual({ command: '', positionals: [], args: {} });
  });

  it('separates positionals from key=value arguments and keeps values as text', () => {
    const parsed = parseCommandLine('network Guest limit=5 dhcp_enabled=true empty=');

    expect(parsed).toEqual({
      command: 'network',
      positionals: ['Guest'],
      args: { limit: '5', dhcp_enabled: 'true', empty: '' },
    });
  });

  it('turns an unquoted comma value into an array but keeps a quoted one as text', () => {
    const parsed = parseCommandLine('x network_ids=a,b,c name="a,b" other=\'c,d\' tail=a,');

    expect(parsed.args).toEqual({ network_ids: ['a', 'b', 'c'], name: 'a,b', other: 'c,d', tail: ['a'] });
  });

  it('applies the comma rule to shell-split words, which carry no quotes', () => {
    const parsed = parseCommand(['create_firewall_zone', 'network_ids=a,b', 'name=Core zone']);

    expect(parsed.args).toEqual({ network_ids: ['a', 'b'], name: 'Core zone' });
  });

  it('takes a quoted word containing = as a positional', () => {
    const parsed = parseCommandLine('network "a=b"');

    expect(parsed.positionals).toEqual(['a=b']);
    expect(parsed.args).toEqual({});
  });

  it('refuses a key given twice, whatever its case', () => {
    expect(validationIssues(() => parseCommandLine('x name=a name=b'))).toEqual([
      { field: 'name', rule: 'is given twice' },
    ]);
    expect(validationIssues(() => parseCommandLine('x Name=a name=b'))[0]?.field).toBe('name');
  });

  it('lower-cases keys', () => {
    expect(parseCommandLine('x Name=IoT').args).toEqual({ name: 'IoT' });
  });

  it('refuses keys that are not identifiers', () => {
    expect(validationIssues(() => parseCommandLine('x 9lives=1'))[0]).toEqual({
      field: '9lives',
      rule: 'is not a valid argument name (letters, digits and _ only)',
    });
    expect(validationIssues(() => parseCommandLine('x vlan-id=4'))[0]?.field).toBe('vlan-id');
    expect(validationIssues(() => parseCommandLine('x =4'))[0]?.rule).toContain('has no name');
  });
});

describe('Slack markup', () => {
  // Deliberately alike: one expectation per Slack markup form, so a failure names the form.
  it('unwraps links, mailto, channels and users to what the user saw', () => {
    expect(unwrapSlackMarkup('<http://corp.example|corp.example>')).toBe('corp.example');
    expect(unwrapSlackMarkup('<http://corp.example>')).toBe('http://corp.example');
    expect(unwrapSlackMarkup('<mailto:ops@corp.example|ops@corp.example>')).toBe('ops@corp.example');
    expect(unwrapSlackMarkup('<mailto:ops@corp.example>')).toBe('ops@corp.example');
    expect(unwrapSlackMarkup('<#C123|netops>')).toBe('#netops');
    expect(unwrapSlackMarkup('<@U123>')).toBe('@U123');
    expect(unwrapSlackMarkup('10.0.0.0/8')).toBe('10.0.0.0/8');
  });

  it('decodes the entities Slack escapes', () => {
    expect(unwrapSlackMarkup('a&amp;b &lt;c&gt;')).toBe('a&b <c>');
  });

  it('unwraps whole values, positionals and each item of a list', () => {
    const parsed = parseCommandLine(
      '/net subnet <http://lab.example|lab.example> domain_name=<http://corp.example|corp.example> ' +
        'dns=<http://a.example|a.example>,<http://b.example|b.example>',
    );

    expect(parsed.positionals).toEqual(['lab.example']);
    expect(parsed.args).toEqual({ domain_name: 'corp.example', dns: ['a.example', 'b.example'] });
  });

  it('does not unwrap markup that is only part of a value', () => {
    expect(parseCommandLine('x note=see<http://a|a>').args.note).toBe('see<http://a|a>');
  });
});
