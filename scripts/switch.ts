/**
 * `npm run switch -- <name> on|off [--account acct_...]`: operator command flipping a feature switch
 * (global) or an account's cohort flag (spec 1 "dark-flag", rule 5, part 6). `npm run switch -- list`
 * prints every known switch with its state. Takes effect on every API instance within 2 seconds.
 */
import 'reflect-metadata';
import { SWITCH_DEFAULTS, isSwitchOn, setSwitch } from '../lib/switches';
import { closeDb, initDb } from '../lib/db';
import { useRuntimeEnv } from './runtime';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (!process.env.DATABASE_URL) useRuntimeEnv();
  await initDb(process.env.DATABASE_URL!, 1);
  if (args[0] === 'list' || args.length === 0) {
    for (const name of Object.keys(SWITCH_DEFAULTS))
      process.stdout.write(`${name}\t${(await isSwitchOn(name)) ? 'on' : 'off'}\t${SWITCH_DEFAULTS[name].description}\n`);
  } else {
    const [name, state] = args;
    if (state !== 'on' && state !== 'off') throw new Error('usage: npm run switch -- <name> on|off [--account acct_...] | list');
    if (!SWITCH_DEFAULTS[name]) process.stderr.write(`warning: ${name} is not a known switch; setting it anyway\n`);
    const i = args.indexOf('--account');
    const account = i >= 0 ? args[i + 1] : undefined;
    await setSwitch(name, state === 'on', account);
    process.stdout.write(`${name} ${state}${account ? ` for ${account}` : ''}\n`);
  }
  await closeDb();
}

main().catch((e) => {
  process.stderr.write(`${String(e)}\n`);
  process.exit(1);
});
