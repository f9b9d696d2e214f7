/** The vsix suite: the extension installed from its .vsix (scripts/test-integration.mjs packages and installs it). */
import { runSuite } from '../../runSuite';

export async function run(): Promise<void> {
  await runSuite(__dirname);
}
