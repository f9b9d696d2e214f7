import type * as vscode from 'vscode';

/** Owns disposables: everything a class registers is disposed with it. */
export abstract class Disposable implements vscode.Disposable {
  private readonly owned: vscode.Disposable[] = [];
  private disposed = false;

  protected register<T extends vscode.Disposable>(d: T): T {
    if (this.disposed) d.dispose();
    else this.owned.push(d);
    return d;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.owned.splice(0).reverse()) {
      try {
        d.dispose();
      } catch {
        // A failing dispose must not stop the others.
      }
    }
  }
}
