// The catalogue is the shared vocabulary of enforcement, so it lives in the kit.
export * from '@voxgate/kit/limits/catalogue';
