// Jest loads global setup outside its module system, so the TypeScript setup is loaded through tsx.
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  const { default: setup } = await tsImport('./global-setup.ts', import.meta.url);
  await setup();
}
