/** Main integration suite: runs in a trusted fixture workspace (test/integration/workspaces/basic). */
import { runSuite } from '../../runSuite';

export async function run(): Promise<void> {
  await runSuite(__dirname);
}
