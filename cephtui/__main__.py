from cephtui.launcher import main

raise SystemExit(main())
