// node tests/js/judge-records-node.mjs <cases.json>: judges the cases with guard-driver.mjs and
// prints the rows as one JSON array.
import { readFileSync } from 'node:fs';
import * as driver from '../../guard-driver.mjs';
import { judgeCases } from './judge-records.mjs';

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
process.stdout.write(JSON.stringify(judgeCases(driver, input.sets, input.cases)));
