/**
 * Workspace Trust suite: the fixture workspace (test/integration/workspaces/untrusted) is opened
 * WITHOUT --disable-workspace-trust and is never trusted, so the extension runs in restricted
 * mode. Its server definitions must never be started.
 */
import { runSuite } from '../../runSuite';

export async function run(): Promise<void> {
  await runSuite(__dirname);
}
