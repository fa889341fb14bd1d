// src/main.js: start the app only when licensed.
import { gateApp } from './license.js';

window.addEventListener('DOMContentLoaded', () => {
  gateApp(document.getElementById('app'), async (outcome) => {
    document.getElementById('app').append(document.createTextNode('Licensed: ' + outcome.message));
    // ... start your UI here ...
  });
});
