from cephtui.cli import main

raise SystemExit(main())
