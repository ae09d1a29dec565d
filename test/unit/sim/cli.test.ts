/** `npm run sim`: starts, prints its base URL and keys, serves, and stops on SIGTERM. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = path.resolve(__dirname, '../../sim/cli.ts');

describe('sim CLI', () => {
  it('prints the base URL and keys, answers, and exits cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--port', '0', '--profile', 'docs'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    const baseUrl = await new Promise<string>((resolve, reject) => {
      const check = () => {
        const match = /base URL: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)/.exec(output);
        if (match && output.includes('low-quota-key')) return resolve(match[1]!);
        if (child.exitCode !== null) return reject(new Error(`CLI exited: ${output}`));
        setTimeout(check, 50);
      };
      check();
    });
    expect(output).toContain('demo-key-0001');
    expect(output).toContain('profile:  docs');
    expect(output).toContain('200 clean row'); // the docs profile's checkIP for unknown IPs

    const response = await fetch(`${baseUrl}/checkIP?ip=4.2.2.2`, { headers: { 'X-API-Key': 'demo-key-0001' } });
    expect(response.status).toBe(200);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses a bad option', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--not-found-mode', 'maybe'], { stdio: 'ignore' });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
  });
});
