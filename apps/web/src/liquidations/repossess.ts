/**
 * Repossess goes through the guardian like every vault action; the guardian client is not wired
 * into the web app yet (see src/flows/execute.ts), so this refuses with the same message.
 */
export async function repossessVault(liquidatedVaultId: string): Promise<never> {
  void liquidatedVaultId;
  throw new Error('Guardian client not wired yet');
}
